import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  isPathInside,
  type PathPolicyErrorReason,
  relativeDisplayPath,
  resolveLexicalPath,
} from '../src/index.js';

// Pure path logic with path.win32 rules, on any OS: no file system is touched.
const win = (input: string, base = 'C:\\proj') => resolveLexicalPath(input, { base, platform: 'win32' });

const accepts = (input: string, expected: string, base?: string) => {
  const result = win(input, base);
  assert.deepEqual(result, { ok: true, path: expected }, input);
  // The result is what path.win32 itself considers absolute and normalised.
  assert.equal(path.win32.isAbsolute(expected), true);
  assert.equal(path.win32.normalize(expected), expected);
};

const refuses = (input: string, reason: PathPolicyErrorReason, base?: string) => {
  const result = win(input, base);
  assert.equal(result.ok, false, input);
  assert.equal(!result.ok && result.error.code, 'PATH_INVALID', input);
  assert.equal(!result.ok && result.error.reason, reason, input);
};

describe('resolveLexicalPath on win32', () => {
  it('normalises drive-absolute paths and mixed separators (PP-WIN-1)', () => {
    accepts('C:\\proj\\src\\a.ts', 'C:\\proj\\src\\a.ts');
    accepts('c:/proj/src/a.ts', 'c:\\proj\\src\\a.ts');
    accepts('C:/proj\\src//a.ts', 'C:\\proj\\src\\a.ts');
    accepts('src/a.ts', 'C:\\proj\\src\\a.ts');
    accepts('src\\..\\..\\other\\x', 'C:\\other\\x');
    accepts('D:\\data\\x', 'D:\\data\\x');
    accepts('C:\\..\\..\\x', 'C:\\x');
    accepts('src\\', 'C:\\proj\\src');
  });

  it('refuses drive-relative paths (PP-WIN-2)', () => {
    refuses('C:foo', 'windows_drive_relative');
    refuses('C:', 'windows_drive_relative');
    refuses('d:..\\x', 'windows_drive_relative');
    const message = win('C:foo');
    assert.match(!message.ok ? message.error.message : '', /per-drive working directory/);
  });

  it('treats UNC paths as absolute and keeps .. inside the share (PP-WIN-3)', () => {
    accepts('\\\\server\\share\\dir\\f.txt', '\\\\server\\share\\dir\\f.txt');
    accepts('//server/share/dir/f.txt', '\\\\server\\share\\dir\\f.txt');
    accepts('\\\\server\\share\\..\\..\\x', '\\\\server\\share\\x');
    accepts('sub\\x', '\\\\server\\share\\proj\\sub\\x', '\\\\server\\share\\proj');
    refuses('\\\\server', 'windows_unc_incomplete');
    refuses('\\\\server\\', 'windows_unc_incomplete');
    refuses('\\\\\\share', 'windows_unc_incomplete');
  });

  it('maps \\\\?\\ and \\\\.\\ prefixes and refuses other device paths (PP-WIN-4)', () => {
    accepts('\\\\?\\C:\\proj\\a.ts', 'C:\\proj\\a.ts');
    accepts('\\\\.\\C:\\proj\\a.ts', 'C:\\proj\\a.ts');
    accepts('//?/C:/proj/a.ts', 'C:\\proj\\a.ts');
    accepts('\\\\?\\C:', 'C:\\');
    accepts('\\\\?\\UNC\\server\\share\\x', '\\\\server\\share\\x');
    accepts('\\\\?\\C:\\proj\\..\\..\\x', 'C:\\x');
    refuses('\\\\.\\pipe\\evil', 'windows_device_path');
    refuses('\\\\?\\Volume{01234567-89ab-cdef-0123-456789abcdef}\\x', 'windows_device_path');
    refuses('\\\\.\\PhysicalDrive0', 'windows_device_path');
    refuses('\\??\\C:\\x', 'windows_device_path');
    refuses('\\\\?\\GLOBALROOT\\Device\\HarddiskVolume1\\x', 'windows_device_path');
  });

  it('resolves a root-relative input on the base drive or share (PP-WIN-5)', () => {
    accepts('\\Windows\\System32', 'C:\\Windows\\System32');
    accepts('/x', 'D:\\x', 'D:\\work\\proj');
    accepts('\\x', '\\\\server\\share\\x', '\\\\server\\share\\proj');
  });

  it('refuses names Windows would reinterpret (PP-WIN-6)', () => {
    const cases: Array<[string, PathPolicyErrorReason]> = [
      ['.env::$DATA', 'windows_invalid_name'],
      ['file.txt:stream', 'windows_invalid_name'],
      ['src\\a?.ts', 'windows_invalid_name'],
      ['src\\*', 'windows_invalid_name'],
      ['a<b', 'windows_invalid_name'],
      ['a"b', 'windows_invalid_name'],
      ['a|b', 'windows_invalid_name'],
      ['tab\there', 'windows_invalid_name'],
      ['CON', 'windows_reserved_name'],
      ['src\\nul.txt', 'windows_reserved_name'],
      ['com1', 'windows_reserved_name'],
      ['LPT9.log', 'windows_reserved_name'],
      ['COM¹', 'windows_reserved_name'],
      ['conin$', 'windows_reserved_name'],
      ['aux .txt', 'windows_reserved_name'],
      ['.env.', 'windows_trailing_dot_or_space'],
      ['.env ', 'windows_trailing_dot_or_space'],
      ['dir.\\x', 'windows_trailing_dot_or_space'],
      ['...', 'windows_trailing_dot_or_space'],
    ];
    for (const [input, reason] of cases) refuses(input, reason);
    // Names that only look like the reserved ones are fine.
    accepts('console.log', 'C:\\proj\\console.log');
    accepts('nullable.ts', 'C:\\proj\\nullable.ts');
    accepts('..foo\\bar', 'C:\\proj\\..foo\\bar');
  });

  it('refuses a name over 255 UTF-16 units (PP-WIN-6)', () => {
    accepts('n'.repeat(255), `C:\\proj\\${'n'.repeat(255)}`);
    refuses('n'.repeat(256), 'name_too_long');
  });
});

describe('isPathInside on win32', () => {
  const inside = (root: string, target: string, caseSensitive = false) =>
    isPathInside(root, target, { platform: 'win32', caseSensitive });

  it('compares drive letters and UNC roots case-insensitively, names by the option (PP-WIN-7)', () => {
    assert.equal(inside('C:\\proj', 'c:\\proj\\x'), true);
    assert.equal(inside('C:\\proj', 'c:\\PROJ\\x'), true);
    assert.equal(inside('C:\\proj', 'c:\\PROJ\\x', true), false);
    assert.equal(inside('c:\\proj', 'C:\\proj\\x', true), true);
    assert.equal(inside('\\\\Server\\Share\\proj', '\\\\server\\share\\proj\\x', true), true);
    assert.equal(inside('C:\\proj', 'D:\\proj\\x'), false);
    assert.equal(inside('C:\\proj', '\\\\server\\share\\proj'), false);
  });

  it('contains by whole names (PP-WIN-7, PP-REAL-4)', () => {
    assert.equal(inside('C:\\proj', 'C:\\proj'), true);
    assert.equal(inside('C:\\proj', 'C:\\proj\\..foo\\x'), true);
    assert.equal(inside('C:\\proj', 'C:\\proj-evil\\x'), false);
    assert.equal(inside('C:\\proj', 'C:\\pro'), false);
    assert.equal(inside('C:\\', 'C:\\anything\\x'), true);
    assert.equal(inside('\\\\server\\share', '\\\\server\\share2\\x'), false);
    assert.equal(inside('\\\\server\\share', '\\\\server\\share\\x'), true);
  });

  it('agrees with the lexical resolver on escapes (PP-WIN-1, PP-WIN-3, PP-WIN-7)', () => {
    for (const [input, expected] of [
      ['..\\proj-evil\\x', false],
      ['C:\\PROJ\\src', true],
      ['\\\\?\\c:\\proj\\a', true],
      ['sub\\..\\..\\proj\\a', true],
      ['\\proj-evil', false],
    ] as const) {
      const result = win(input);
      assert.ok(result.ok, input);
      assert.equal(inside('C:\\proj', result.path), expected, input);
    }
  });
});

describe('relativeDisplayPath on win32', () => {
  it('uses / separators and has no relative form across drives (PP-WIN-8)', () => {
    const display = (base: string, target: string) =>
      relativeDisplayPath(base, target, { platform: 'win32', caseSensitive: false });
    assert.equal(display('C:\\proj', 'C:\\proj\\src\\a.ts'), 'src/a.ts');
    assert.equal(display('C:\\proj', 'c:\\PROJ\\src\\a.ts'), 'src/a.ts');
    assert.equal(display('C:\\proj', 'C:\\proj'), '.');
    assert.equal(display('C:\\proj\\tests', 'C:\\proj\\shared\\x'), '../shared/x');
    assert.equal(display('C:\\proj', 'D:\\proj\\x'), undefined);
    assert.equal(display('\\\\s\\share\\proj', '\\\\s\\share\\proj\\x'), 'x');
  });
});
