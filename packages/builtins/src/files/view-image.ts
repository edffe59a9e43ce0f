import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { defineTool, errorResult, type ToolDefinition, ToolhostError } from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import { abortErrorOf } from '../discovery/discovery-abort.js';
import type { ViewImageArguments } from '../discovery/discovery-arguments.js';
import {
  DISCOVERY_ANNOTATIONS,
  DISCOVERY_CATEGORIES,
  discoveryExecution,
} from '../discovery/discovery-definition.js';
import {
  fileSystemError,
  pathPolicyErrorToToolhostError,
  resolveDiscoveryTarget,
} from '../discovery/discovery-policy.js';
import { viewImageArgumentsSchema } from '../discovery/discovery-schemas.generated.js';

/** The largest image file `view_image` returns, in bytes (3 MiB). */
export const VIEW_IMAGE_MAX_BYTES = 3 * 1024 * 1024;
/** The most pixels (width × height) of an image `view_image` returns (40 million). */
export const VIEW_IMAGE_MAX_PIXELS = 40_000_000;

/** The image formats `view_image` returns, by image-size's type name. */
const MIME_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Options of {@link createViewImageTool}. */
export interface ViewImageToolOptions {
  readonly pathPolicy: PathPolicy;
  /** Default 15 000 ms. */
  readonly timeoutMs?: number;
}

const DESCRIPTION = [
  'View an image file (PNG, JPEG, GIF or WebP, at most 3 MiB and 40 megapixels): returns the image itself, after a header line "[image: <mime>, <width>x<height>] <path>".',
  'Use this to look at screenshots, diagrams and other images instead of printing them in the shell. Find images with glob first (for example "*.png").',
].join(' ');

/**
 * Creates the `view_image` tool. The format is read from the file's header (image-size), not its
 * name; the file is opened without following a final symbolic link, and its size is checked on the
 * open file before it is read.
 *
 * Error codes: the path policy's, `FS_NOT_FOUND`, `NOT_A_FILE`, `FILE_TOO_LARGE` (over 3 MiB or 40
 * million pixels), `FILE_UNSUPPORTED` (not PNG, JPEG, GIF or WebP), `FS_ACCESS_DENIED`,
 * `TIMEOUT` / `ABORTED`.
 */
export function createViewImageTool(options: ViewImageToolOptions): ToolDefinition<ViewImageArguments> {
  const policy = options.pathPolicy;
  return defineTool({
    name: 'view_image',
    source: 'builtin',
    group: 'read_only_builtins',
    category: DISCOVERY_CATEGORIES.view_image,
    annotations: DISCOVERY_ANNOTATIONS,
    execution: discoveryExecution(options.timeoutMs ?? 15_000),
    pathAccess: 'current_project',
    visibility: 'listed',
    modelTool: { name: 'view_image', description: DESCRIPTION, inputSchema: viewImageArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'read' }],
      subject: (args) => args.path,
      preview: (args) => `view image ${args.path}`,
    },
    async execute(args, context) {
      if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'view_image'));
      const target = await resolveDiscoveryTarget(policy, args.path, 'read');
      if (!target.ok) return errorResult(target.error);
      const { path: file, displayPath, kind } = target.value;
      const shown = JSON.stringify(displayPath);
      if (kind !== 'file') {
        return errorResult(
          new ToolhostError({
            code: 'NOT_A_FILE',
            message: `${shown} is not a regular file`,
            recovery: kind === 'directory' ? 'use ls or glob to find image files' : 'pass an image file',
          }),
        );
      }
      // The directory is pinned: the read happens in it whatever is swapped meanwhile, and the pin is
      // confirmed after the read, before any byte is returned.
      const pinned = policy.pinTarget(file, { access: 'read' });
      if (!pinned.ok) return errorResult(pathPolicyErrorToToolhostError(pinned.error));
      const pin = pinned.value;
      let bytes: Buffer;
      try {
        const read = await readImageFile(pin.path, context.signal);
        const confirmed = pin.verify();
        if (!confirmed.ok) return errorResult(pathPolicyErrorToToolhostError(confirmed.error));
        if (!read.ok) {
          return errorResult(
            new ToolhostError({
              code: 'FILE_TOO_LARGE',
              message: `${shown} is ${read.size} bytes; view_image returns images of at most ${VIEW_IMAGE_MAX_BYTES} bytes (3 MiB)`,
              recovery: 'use a smaller image (for example a resized copy)',
              details: { bytes: read.size, maxBytes: VIEW_IMAGE_MAX_BYTES },
            }),
          );
        }
        bytes = read.bytes;
      } catch (error) {
        if (context.signal.aborted) return errorResult(abortErrorOf(context.signal, 'view_image'));
        return errorResult(fileSystemError(error, displayPath));
      } finally {
        pin.close();
      }
      let size: { width: number; height: number; type?: string };
      try {
        // Loaded on first use so that hosts which never view an image do not import it at start-up.
        const { imageSize } = await import('image-size');
        size = imageSize(bytes);
      } catch {
        size = { width: 0, height: 0 };
      }
      const mimeType = size.type === undefined ? undefined : MIME_TYPES[size.type];
      if (mimeType === undefined) {
        return errorResult(
          new ToolhostError({
            code: 'FILE_UNSUPPORTED',
            message: `${shown} is not a PNG, JPEG, GIF or WebP image (found ${size.type === undefined ? 'no known image header' : `a ${size.type.toUpperCase()} header`})`,
            recovery: 'view_image returns PNG, JPEG, GIF and WebP images; use read_file for text files',
          }),
        );
      }
      const pixels = size.width * size.height;
      if (pixels > VIEW_IMAGE_MAX_PIXELS) {
        return errorResult(
          new ToolhostError({
            code: 'FILE_TOO_LARGE',
            message: `${shown} is ${size.width}x${size.height} pixels; view_image returns images of at most ${VIEW_IMAGE_MAX_PIXELS} pixels`,
            recovery: 'use a smaller image (for example a resized copy)',
            details: { width: size.width, height: size.height, maxPixels: VIEW_IMAGE_MAX_PIXELS },
          }),
        );
      }
      return {
        ok: true,
        output: {
          content: [
            { type: 'text', text: `[image: ${mimeType}, ${size.width}x${size.height}] ${displayPath}` },
            { type: 'image', mimeType, data: bytes.toString('base64') },
          ],
          details: {
            path: displayPath,
            mimeType,
            width: size.width,
            height: size.height,
            bytes: bytes.length,
          },
        },
      };
    },
  });
}

/** Reads a file of at most {@link VIEW_IMAGE_MAX_BYTES}, not following a final symbolic link. */
async function readImageFile(
  file: string,
  signal: AbortSignal,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; size: number }> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    if (stats.size > VIEW_IMAGE_MAX_BYTES) return { ok: false, size: stats.size };
    // Read one byte past the size: a file that grew after the check is reported, never cut.
    const buffer = Buffer.allocUnsafe(stats.size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      if (signal.aborted) throw signal.reason;
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > stats.size)
      throw Object.assign(new Error('the file grew while it was read'), { code: 'ECHANGED' });
    return { ok: true, bytes: buffer.subarray(0, filled) };
  } finally {
    await handle.close();
  }
}
