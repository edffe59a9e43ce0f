import path from 'node:path';
import { type PathPolicyError, pathError, subjectOf } from './path-policy-error.js';
import { HOST_PLATFORM, type PathPlatform } from './path-syntax.js';

/** The default ceiling on an input path, in UTF-8 bytes (Linux `PATH_MAX`). */
export const DEFAULT_MAX_PATH_LENGTH = 4096;

/**
 * The ceiling on one name (path segment): 255 UTF-8 bytes on POSIX (`NAME_MAX` on Linux and APFS),
 * 255 UTF-16 code units on Windows (NTFS).
 */
export const MAX_NAME_LENGTH = 255;

/** Options of {@link resolveLexicalPath}. */
export interface ResolveLexicalPathOptions {
  /** Absolute, normalised directory that relative inputs are joined to. */
  readonly base: string;
  /** Path grammar. Default: the host's. */
  readonly platform?: PathPlatform;
  /** Longest accepted input in UTF-8 bytes. Default {@link DEFAULT_MAX_PATH_LENGTH}. */
  readonly maxPathLength?: number;
  /** The argument's name, for messages (`The path given as "source"`); messages never echo the input. */
  readonly argument?: string;
}

/** The absolute, normalised path an input names, or why the input is unusable. */
export type ResolveLexicalPathResult = { ok: true; path: string } | { ok: false; error: PathPolicyError };

// Windows device names that open a device in any directory (with or without an extension on
// Windows 10 and older). Superscript digits count as digits to the Win32 path parser.
const WINDOWS_RESERVED_NAME = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;
// Characters Win32 refuses in names; `:` also opens NTFS alternate data streams (`.env::$DATA`).
const WINDOWS_INVALID_CHARACTER = /[<>:"|?*\u0001-\u001f]/;
const WINDOWS_DRIVE = /^[A-Za-z]:/;

function refuseWindows(
  reason: Parameters<typeof pathError>[1],
  subject: string,
  rule: string,
): { ok: false; error: PathPolicyError } {
  return pathError('PATH_INVALID', reason, `${subject} is not usable: ${rule}`);
}

/**
 * Validates a path input and turns it into an absolute, normalised path by pure string logic (no
 * file system access; symbolic links are resolved later, on real paths).
 *
 * Rules (requirement ids in REQUIREMENTS.md): a non-string, a NUL byte, an unpaired surrogate, an
 * empty or blank string,
 * an input over `maxPathLength` UTF-8 bytes and a name over {@link MAX_NAME_LENGTH} are refused
 * (PP-IN-1..4). `..` is applied lexically; trailing separators and `.` names are dropped (PP-IN-5).
 * On win32 (PP-WIN-1..8): `/` and `\` are both separators; `C:\x` and `\\server\share\x` are
 * absolute; `\x` is relative to the base's drive; the `\\?\` and `\\.\` prefixes are accepted only
 * before a drive (`\\?\C:\x`) or `UNC\server\share`, other device paths are refused; drive-relative
 * `C:x` is refused because its meaning depends on a per-drive working directory; names with
 * `<>:"|?*` or control characters (including `:` streams), reserved device names (`CON`, `NUL.txt`,
 * `COM1` ...) and names ending in a dot or space (which Windows silently strips) are refused.
 *
 * Error code: always `PATH_INVALID`.
 */
export function resolveLexicalPath(
  input: unknown,
  options: ResolveLexicalPathOptions,
): ResolveLexicalPathResult {
  const subject = subjectOf(options.argument);
  if (typeof input !== 'string') {
    return pathError(
      'PATH_INVALID',
      'not_a_string',
      `${subject} must be a string, not ${describeType(input)}.`,
    );
  }
  if (input.includes('\u0000')) {
    return pathError(
      'PATH_INVALID',
      'nul_byte',
      `${subject} contains a NUL byte, which no file name can contain. Remove it.`,
    );
  }
  // A lone UTF-16 surrogate has no UTF-8 form: the file system would see U+FFFD instead, another name.
  if (/\p{Cs}/u.test(input)) {
    return pathError(
      'PATH_INVALID',
      'invalid_unicode',
      `${subject} is not valid Unicode (it contains an unpaired surrogate). Pass the name as valid text.`,
    );
  }
  if (input.trim() === '') {
    return pathError(
      'PATH_INVALID',
      'empty',
      `${subject} is empty. Pass a file or directory path relative to the project root.`,
    );
  }
  const maxPathLength = options.maxPathLength ?? DEFAULT_MAX_PATH_LENGTH;
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes > maxPathLength) {
    return pathError(
      'PATH_INVALID',
      'too_long',
      `${subject} is ${bytes} bytes long; the limit is ${maxPathLength} bytes. Use a shorter path.`,
    );
  }
  const platform = options.platform ?? HOST_PLATFORM;
  return platform === 'win32'
    ? resolveWindows(input, options.base, subject)
    : resolvePosix(input, options.base, subject);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function nameTooLong(subject: string, length: number, unit: string): { ok: false; error: PathPolicyError } {
  return pathError(
    'PATH_INVALID',
    'name_too_long',
    `${subject} has a name of ${length} ${unit}; the limit for one name is ${MAX_NAME_LENGTH} ${unit}. Use a shorter name.`,
  );
}

function resolvePosix(input: string, base: string, subject: string): ResolveLexicalPathResult {
  for (const name of input.split('/')) {
    // Checked here because the kernel's ENAMETOOLONG for a missing name would only surface at write time.
    const length = Buffer.byteLength(name, 'utf8');
    if (length > MAX_NAME_LENGTH) return nameTooLong(subject, length, 'bytes');
  }
  // posix.resolve never consults process.cwd() here: `base` is absolute. It also drops trailing
  // separators and `.` names and applies `..` (stopping at `/`).
  return { ok: true, path: path.posix.resolve(base, input) };
}

function resolveWindows(input: string, base: string, subject: string): ResolveLexicalPathResult {
  let text = input.replace(/\//g, '\\');
  if (text.startsWith('\\??\\')) {
    return refuseWindows(
      'windows_device_path',
      subject,
      'NT object paths (\\??\\) are not supported. Use C:\\... or a path relative to the project root.',
    );
  }
  const verbatim = /^\\\\[?.]\\/.exec(text);
  if (verbatim) {
    const rest = text.slice(verbatim[0].length);
    if (/^UNC\\/i.test(rest)) {
      text = `\\\\${rest.slice(4)}`;
    } else if (/^[A-Za-z]:(?:\\|$)/.test(rest)) {
      text = rest.length === 2 ? `${rest}\\` : rest;
    } else {
      return refuseWindows(
        'windows_device_path',
        subject,
        'device paths (\\\\.\\pipe, \\\\?\\Volume{...}, \\\\.\\PhysicalDrive0 ...) are not supported. Use C:\\... or a path relative to the project root.',
      );
    }
  }
  let rootLength = 0;
  if (text.startsWith('\\\\')) {
    const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\|$)/.exec(text);
    if (!unc || unc[1] === '.' || unc[1] === '?') {
      return refuseWindows(
        'windows_unc_incomplete',
        subject,
        'a UNC path needs a server and a share (\\\\server\\share\\...).',
      );
    }
    rootLength = unc[0].length;
  } else if (WINDOWS_DRIVE.test(text)) {
    if (text[2] !== '\\') {
      return refuseWindows(
        'windows_drive_relative',
        subject,
        'a drive-relative path (C:name) depends on a per-drive working directory. Use C:\\... or a path relative to the project root.',
      );
    }
    rootLength = 3;
  } else if (text.startsWith('\\')) {
    rootLength = 1;
  }
  for (const name of text.slice(rootLength).split('\\')) {
    if (name === '' || name === '.' || name === '..') continue;
    if (WINDOWS_INVALID_CHARACTER.test(name)) {
      return refuseWindows(
        'windows_invalid_name',
        subject,
        'Windows names cannot contain < > : " | ? * or control characters (a colon would open an alternate data stream).',
      );
    }
    if (/[. ]$/.test(name)) {
      return refuseWindows(
        'windows_trailing_dot_or_space',
        subject,
        'Windows strips a trailing dot or space from a name, so it would name a different file. Remove it.',
      );
    }
    const stem = name.split('.')[0]!.trimEnd();
    if (WINDOWS_RESERVED_NAME.test(stem)) {
      return refuseWindows(
        'windows_reserved_name',
        subject,
        'a name on the way is a reserved Windows device name in every directory (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with or without an extension). Choose another name.',
      );
    }
    if (name.length > MAX_NAME_LENGTH) return nameTooLong(subject, name.length, 'UTF-16 code units');
  }
  // win32.resolve never consults process.cwd() or the per-drive environment here: `base` carries a
  // drive or UNC root, drive-relative inputs were refused above, and `\x` takes the base's root.
  return { ok: true, path: path.win32.resolve(base, text) };
}
