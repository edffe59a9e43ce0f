import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

/**
 * CPU time of a process and all its threads so far, in µs: the sum of the first field of every
 * `/proc/<pid>/task/<tid>/schedstat` (nanoseconds on a CPU), so the libuv thread pool counts too.
 */
export function processCpuUs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return total / 1e3;
}

/** A JSON-RPC response as it came off the pipe. */
export interface JsonRpcResponse {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/**
 * A minimal MCP client over a server's stdio: newline-delimited JSON-RPC written to its stdin, one
 * `JSON.parse` per line read from its stdout, answers matched by id. No schemas, no per-request abort
 * controllers or timers: the MCP SDK's `Client` costs the benchmark's own process about as much CPU per
 * call as a small server does, and on a 2-core machine that client shares the cores with the server it
 * measures. This one costs a fraction of that, so a row driven by it shows what the server can serve.
 * Every answer is still a full round trip that the caller checks.
 */
export class JsonRpcPipeClient {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #pending = new Map<number, (response: JsonRpcResponse) => void>();
  #buffer = '';
  #nextId = 0;
  #exited: Promise<void>;
  #failure: Error | undefined;

  private constructor(child: ChildProcessByStdio<Writable, Readable, null>) {
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => {
      this.#fail(new Error(`the server exited (code ${code}, signal ${signal}) with requests pending`));
    });
    child.once('error', (error) => this.#fail(error));
  }

  /** Spawns `command args` in `cwd` and completes the MCP `initialize` handshake. */
  static async start(command: string, args: readonly string[], cwd: string): Promise<JsonRpcPipeClient> {
    const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    const client = new JsonRpcPipeClient(child);
    const answer = await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'toolhost-bench-pipe', version: '1.0.0' },
    });
    if (answer.error || typeof answer.result !== 'object') {
      await client.close();
      throw new Error(`initialize failed: ${JSON.stringify(answer).slice(0, 200)}`);
    }
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return client;
  }

  /** The server's process id (for its CPU time). */
  get pid(): number {
    return this.#child.pid!;
  }

  /** Sends one request and resolves with its response. */
  request(method: string, params: unknown): Promise<JsonRpcResponse> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = ++this.#nextId;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /**
   * Runs `calls` calls with `inFlight` of them outstanding at any time (a new one is sent as soon as
   * one is answered) and returns the wall time per call in µs.
   */
  async pipelined(calls: number, inFlight: number, call: () => Promise<void>): Promise<number> {
    let issued = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(inFlight, calls) }, async () => {
        while (issued < calls) {
          issued += 1;
          await call();
        }
      }),
    );
    return ((performance.now() - started) * 1e3) / calls;
  }

  /** Ends the server's stdin and waits for it to exit. */
  async close(): Promise<void> {
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
    await this.#exited;
    clearTimeout(timer);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const resolve of pending) resolve({ id: -1, error: { code: -1, message: error.message } });
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let newline = this.#buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      newline = this.#buffer.indexOf('\n');
      if (line.trim() === '') continue;
      const message = JSON.parse(line) as { id?: unknown; method?: unknown };
      // A request or notification from the server (none is expected here) has a method: skip it.
      if (typeof message.id !== 'number' || message.method !== undefined) continue;
      const resolve = this.#pending.get(message.id);
      if (resolve) {
        this.#pending.delete(message.id);
        resolve(message as JsonRpcResponse);
      }
    }
  }
}
