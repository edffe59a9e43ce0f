import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { loadedMcpSdk } from './mcp-sdk.js';

/** Options of {@link createStdioTransport}. */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the child (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** Where the child's stderr is appended (mode 0600); without it stderr is discarded. */
  readonly stderrLog?: string | undefined;
  /** The largest single message accepted from the server, in bytes. */
  readonly maxMessageBytes: number;
  /** Lines on stdout that are not JSON-RPC tolerated before the connection is declared broken. */
  readonly maxGarbageLines: number;
  /** How long to wait after closing stdin, then after SIGTERM, before escalating. */
  readonly closeGraceMs: number;
  /** Bytes of stderr written to the log per process before it is cut. */
  readonly maxLogBytes: number;
  /**
   * Run the server in a pid namespace of its own (bubblewrap, `@toolhost/jobs` `containCommand`), so
   * nothing it starts, `setsid` grandchildren included, outlives it or the host. Default true; when
   * no containment works here the server runs as before and {@link StdioTransport.containment} says why.
   */
  readonly contain?: boolean;
}

/** A stdio MCP transport whose child runs in its own process group. */
export interface StdioTransport extends Transport {
  /** The child's pid once started. */
  readonly pid: number | undefined;
  /** How the child ended, once it has: a short value-free description for error messages. */
  readonly exitDescription: string | undefined;
  /** Why the transport gave up on the server (garbage, oversized message), if it did. */
  readonly failure: string | undefined;
  /**
   * Once started: `contained` when the server runs in its own pid namespace, otherwise the reason it
   * does not (value-free, for the audit); undefined before the start.
   */
  readonly containment: string | undefined;
}

// Process groups of live servers, killed synchronously if the host process exits without closing.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    if (process.platform === 'win32') process.kill(pid, signal);
    else process.kill(-pid, signal);
  } catch {
    // Already gone (ESRCH), which is what we want.
  }
}

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) killGroup(group, 'SIGKILL');
    });
  }
}

/**
 * A stdio client transport for the MCP SDK's `Client`, written here instead of using the SDK's
 * `StdioClientTransport` because a host needs four things it does not do:
 * - the server runs in its own process group, and closing kills the whole group, so a server that
 *   spawned helpers (an `npx` wrapper, a language runtime) leaves nothing behind;
 * - stderr goes to a size-capped log file, never to the host's own stderr or to the model;
 * - stdout that is not JSON-RPC is tolerated up to a limit and then ends the connection promptly,
 *   instead of being reported line by line for ever;
 * - one message larger than a limit ends the connection instead of growing a buffer; lines are
 *   assembled from a chunk list, so a 5 MB message costs one copy rather than one per chunk.
 * The environment is exactly `env` (the SDK would add its defaults on top). On Linux the server
 * also runs in a pid namespace of its own when bubblewrap works (see `contain`): a grandchild that
 * left the process group with `setsid` dies with the server, and every process of it dies with the
 * host, even one killed with SIGKILL.
 */
export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  let child: ChildProcess | undefined;
  let starting = false;
  let log: WriteStream | undefined;
  let logBytes = 0;
  let exitDescription: string | undefined;
  let failure: string | undefined;
  let closed = false;
  let exited = false;
  let exitPromise: Promise<void> | undefined;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let garbageLines = 0;
  let containment: string | undefined;

  const transport: StdioTransport = {
    onclose: undefined,
    onerror: undefined,
    onmessage: undefined,
    get pid() {
      return child?.pid;
    },
    get exitDescription() {
      return exitDescription;
    },
    get failure() {
      return failure;
    },
    get containment() {
      return containment;
    },
    async start() {
      if (child || starting) throw new Error('the stdio transport is already started');
      starting = true;
      let file = options.command;
      let args = [...options.args];
      if (options.contain !== false && process.platform === 'linux') {
        // Loaded on first use: a host that starts no stdio server never pays for it.
        const { containCommand } = await import('@toolhost/jobs');
        const contained = await containCommand({
          command: options.command,
          args: options.args,
          cwd: options.cwd,
          searchPath: options.env.PATH,
        });
        file = contained.file;
        args = [...contained.args];
        containment = contained.contained ? 'contained' : (contained.reason ?? 'not contained');
      } else {
        containment =
          options.contain === false
            ? 'not contained (turned off)'
            : `no pid namespaces on ${process.platform}`;
      }
      return new Promise<void>((resolve, reject) => {
        if (options.stderrLog) {
          try {
            mkdirSync(dirname(options.stderrLog), { recursive: true, mode: 0o700 });
            log = createWriteStream(options.stderrLog, { flags: 'a', mode: 0o600 });
            log.on('error', () => {
              // A log that cannot be written must not break the server connection.
              log = undefined;
            });
            writeLog(`--- ${new Date().toISOString()} starting ${options.command}\n`);
          } catch {
            log = undefined;
          }
        }
        const spawned = spawn(file, args, {
          cwd: options.cwd,
          env: { ...options.env },
          stdio: ['pipe', 'pipe', 'pipe'],
          // A new process group (setsid) so close() can signal every descendant at once.
          detached: process.platform !== 'win32',
          windowsHide: true,
          shell: false,
        });
        child = spawned;
        exitPromise = new Promise<void>((resolveExit) => {
          spawned.once('close', (code, signal) => {
            exited = true;
            exitDescription ??= signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
            if (spawned.pid !== undefined) {
              // Stragglers the server left in its group are ended with it.
              killGroup(spawned.pid, 'SIGKILL');
              liveGroups.delete(spawned.pid);
            }
            writeLog(`--- ${new Date().toISOString()} server ${exitDescription}\n`);
            endLog();
            resolveExit();
            finish();
          });
        });
        spawned.once('error', (error) => {
          exited = true;
          exitDescription = `could not be started (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
          endLog();
          if (spawned.pid === undefined) {
            reject(error);
            finish();
          } else {
            transport.onerror?.(error);
          }
        });
        spawned.once('spawn', () => {
          if (spawned.pid !== undefined && process.platform !== 'win32') trackGroup(spawned.pid);
          resolve();
        });
        spawned.stdin?.on('error', (error) => {
          if (!closed) transport.onerror?.(error);
        });
        spawned.stdout?.on('data', (chunk: Buffer) => onStdout(chunk));
        spawned.stderr?.on('data', (chunk: Buffer) => writeLog(chunk));
      });
    },
    send(message) {
      return new Promise<void>((resolve, reject) => {
        const stdin = child?.stdin;
        if (!stdin || closed || exited || stdin.destroyed) {
          reject(new Error('the MCP server is not running'));
          return;
        }
        const text = `${JSON.stringify(message)}\n`;
        if (stdin.write(text)) resolve();
        else stdin.once('drain', resolve);
      });
    },
    async close() {
      if (closed) {
        await exitPromise;
        return;
      }
      closed = true;
      const running = child;
      if (running && !exited) {
        try {
          running.stdin?.end();
        } catch {
          // ignore: the pipe may already be gone
        }
        if (!(await waitForExit(options.closeGraceMs)) && running.pid !== undefined) {
          killGroup(running.pid, 'SIGTERM');
          if (!(await waitForExit(options.closeGraceMs))) {
            killGroup(running.pid, 'SIGKILL');
            await exitPromise;
          }
        }
      }
      if (running?.pid !== undefined) {
        killGroup(running.pid, 'SIGKILL');
        liveGroups.delete(running.pid);
      }
      pending = [];
      pendingBytes = 0;
      endLog();
      finish();
    },
  };

  let finished = false;
  let finishRequested = false;
  function finish(): void {
    if (finished) return;
    // Messages already read are delivered before the close, so an answer written just before the
    // server exited still resolves its request.
    if (inbox.length > 0 && !closed) {
      finishRequested = true;
      return;
    }
    finished = true;
    transport.onclose?.();
  }

  // The SDK handles a notification in a microtask but a response at once: two messages read from
  // one chunk (the last progress notification, then the answer) would be handled out of order and
  // the notification dropped. Delivering one message per macrotask lets each finish first.
  const inbox: JSONRPCMessage[] = [];
  let draining = false;
  function deliver(message: JSONRPCMessage): void {
    inbox.push(message);
    if (!draining) drain();
  }
  function drain(): void {
    const message = inbox.shift();
    if (message === undefined) {
      draining = false;
      if (finishRequested) finish();
      return;
    }
    draining = true;
    transport.onmessage?.(message);
    setImmediate(drain);
  }

  async function waitForExit(ms: number): Promise<boolean> {
    if (exited || !exitPromise) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const result = await Promise.race([exitPromise.then(() => true), timedOut]);
    clearTimeout(timer);
    return result;
  }

  function writeLog(data: string | Buffer): void {
    if (!log) return;
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    if (logBytes >= options.maxLogBytes) return;
    logBytes += size;
    if (logBytes >= options.maxLogBytes) {
      log.write(data);
      log.write(`\n--- log cut at ${options.maxLogBytes} bytes for this process\n`);
      return;
    }
    log.write(data);
  }

  function endLog(): void {
    const current = log;
    log = undefined;
    current?.end();
  }

  function breakConnection(reason: string): void {
    if (failure) return;
    failure = reason;
    writeLog(`--- toolhost: ${reason}; closing the connection\n`);
    transport.onerror?.(new Error(reason));
    void transport.close();
    // Given up at once: the client's pending requests fail now (the handshake, a call) instead of when
    // the process is gone, which for a server that ignores stdin closing and SIGTERM is two close
    // graces later; close() goes on ending it, and a second close() still waits for that.
    finish();
  }

  function onStdout(chunk: Buffer): void {
    if (failure || closed) return;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        const rest = chunk.subarray(start);
        pending.push(rest);
        pendingBytes += rest.length;
        if (pendingBytes > options.maxMessageBytes) {
          breakConnection(`the server sent a message larger than ${options.maxMessageBytes} bytes`);
        }
        return;
      }
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (pendingBytes + piece.length > options.maxMessageBytes) {
        breakConnection(`the server sent a message larger than ${options.maxMessageBytes} bytes`);
        return;
      }
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      onLine(line);
      if (failure) return;
    }
  }

  function onLine(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: JSONRPCMessage | undefined;
    try {
      const parsed = loadedMcpSdk().JSONRPCMessageSchema.safeParse(JSON.parse(text));
      if (parsed.success) message = parsed.data;
    } catch {
      message = undefined;
    }
    if (!message) {
      garbageLines++;
      writeLog(`--- toolhost: stdout line ${garbageLines} is not JSON-RPC: ${text.slice(0, 200)}\n`);
      if (garbageLines > options.maxGarbageLines) {
        breakConnection(`the server wrote ${garbageLines} lines to stdout that are not JSON-RPC messages`);
      }
      return;
    }
    deliver(message);
  }

  return transport;
}
