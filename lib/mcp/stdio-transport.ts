import "server-only";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { MAX_SHIFT_DOCUMENT_BYTES } from "../agents/schemas";
import { BODY_LIMITS, KiB } from "../guard/body-limits";
import { utf8TextOf } from "../utf8";
import { MAX_CONTENT_BYTES } from "../handoffs/schemas";
import { keepAnswersForLines, messagePieces } from "./answer-lines";

/** The longest line read as a message: the body the HTTP door lets one MCP request have (1 MiB). */
export const MAX_LINE_BYTES = BODY_LIMITS.mcp;
/**
 * How far reading may run ahead: past this many calls in flight, or this many bytes of answers the
 * client has not read yet, no more lines are read until it is back under (stdin waits in the pipe,
 * and the client's writes wait as they would on a socket). Without it a client that pipelined
 * requests faster than they ran, or never read its answers, grew the server without bound (9,000
 * piped get_handoff and add_to_handoff calls: 1,500 in flight and RSS up 160 MB in 15 s, still
 * rising; 600 piped tools/list never read: 36 MB of answers held). Not at stdout's 16 KB mark:
 * one thread's answer is over it, and a client that reads is then already waiting for it.
 */
const MAX_CALLS_IN_FLIGHT = 256;
const MAX_UNREAD_ANSWER_BYTES = 4 * MAX_LINE_BYTES;
/** How much of an over-long line's start and end is kept to find its request's id. */
const EDGE_BYTES = 256;

const LF = 0x0a;
const CR = 0x0d;
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** A request's id as the first member (`{"id":…` or `{"jsonrpc":"2.0","id":…`) or the last (the SDK's clients write it last). */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of the request a line too long to read carried, when its first or last bytes say it; else null. */
export function requestIdOfEdges(head: string, tail: string): RequestId | null {
  const found = ID_FIRST.exec(head)?.[1] ?? ID_LAST.exec(tail)?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as RequestId;
  } catch {
    return null;
  }
}

/**
 * The id of a request the SDK's schema refused (params given as an array, a jsonrpc other than
 * "2.0") when it names one a client can match (a string or a safe integer), so that its call
 * fails at once instead of waiting for an answer with id null. Only a line with a method: a
 * malformed response's id is the client's own request's, which an error must not answer.
 */
function idOfInvalidRequest(json: unknown): RequestId | null {
  if (typeof json !== "object" || json === null || Array.isArray(json) || !("method" in json) || typeof json.method !== "string" || !("id" in json)) return null;
  const { id } = json;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as RequestId) : null;
}

/**
 * MCP over this process's stdin and stdout, one JSON-RPC message per line.
 *
 * Reading: a line over MAX_LINE_BYTES is dropped as it arrives, never held whole, and answered
 * with -32600 (with its request's id when its edges show it, so the client's call fails at once
 * instead of timing out); the next line is read as before. The SDK's StdioServerTransport keeps
 * up to 10 MiB, copying everything it holds at each chunk (an 8 MiB line took 2 s), and past that
 * closes the transport: the server exited and the client lost every tool. A line that is no
 * JSON-RPC message gets -32700 or -32600 with id null, as JSON-RPC 2.0 says; the SDK's only
 * reports it, which leaves a client waiting. A batch's messages are read one by one.
 *
 * Writing: each message in the pieces messagePieces makes, in one writev. When standard output
 * fails (the client closed its end: EPIPE), reading stops, the calls already read run to their
 * end (a write they make commits), their answers are dropped, and `onoutputfailure` says so.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once when standard output fails: no answer can reach the client any more. */
  onoutputfailure?: (error: NodeJS.ErrnoException) => void;
  /** Set when standard output failed: from then on answers go nowhere. */
  private outputFailure: NodeJS.ErrnoException | null = null;

  /** The current line's pieces while it is within MAX_LINE_BYTES. */
  private pieces: Buffer[] = [];
  private lineBytes = 0;
  /** The first and (so far) last bytes of a line over MAX_LINE_BYTES, whose pieces are dropped. */
  private head: Buffer | null = null;
  private tail: Buffer | null = null;
  /**
   * Requests read and not answered yet, counted per id (a client may reuse an id before its answer
   * came: counted once, the first answer let the server exit before the second), and who waits for
   * there to be none (`settled`).
   */
  private readonly unanswered = new Map<RequestId, number>();
  private unansweredCount = 0;
  private onSettled: (() => void) | null = null;
  private nextDrain: Promise<void> | null = null;
  /** Between start and stopReading: lines are read, except while paced (too far ahead, see pace). */
  private reading = false;
  private paced = false;

  constructor(
    private readonly log: (line: string) => void,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
  ) {
    keepAnswersForLines();
  }

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      this.take(chunk.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  };

  private readonly onError = (error: Error) => this.onerror?.(error);

  private readonly onOutputError = (error: NodeJS.ErrnoException) => {
    if (this.outputFailure) return;
    this.outputFailure = error;
    // A request read from now on could run, but never be answered.
    this.stopReading();
    this.onoutputfailure?.(error);
  };

  /** A last line the client sent without its newline before ending stdin is still a message read. */
  private readonly onEnd = () => {
    if (this.lineBytes > 0) this.endLine();
  };

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.lineBytes += piece.length;
    if (this.tail) {
      // A copy, not a view: a view would keep the whole chunk it came from.
      this.tail = piece.length >= EDGE_BYTES ? Buffer.from(piece.subarray(-EDGE_BYTES)) : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
    } else if (this.lineBytes > MAX_LINE_BYTES) {
      const held = Buffer.concat([...this.pieces, piece]);
      this.head = Buffer.from(held.subarray(0, EDGE_BYTES));
      this.tail = Buffer.from(held.subarray(-EDGE_BYTES));
      this.pieces = [];
    } else {
      this.pieces.push(piece);
    }
  }

  private endLine(): void {
    const { pieces, lineBytes, head, tail } = this;
    this.pieces = [];
    this.lineBytes = 0;
    this.head = this.tail = null;
    if (tail) return this.refuse(requestIdOfEdges(head!.toString("latin1"), tail.toString("latin1")), ErrorCode.InvalidRequest, tooLong(lineBytes));
    // A blank line (or a lone CR) carries no message: nothing to answer.
    if (lineBytes === 0 || (lineBytes === 1 && pieces[0][0] === CR)) return;
    const bytes = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, lineBytes);
    const text = utf8TextOf(bytes);
    if (text === null) {
      const id = requestIdOfEdges(bytes.subarray(0, EDGE_BYTES).toString("latin1"), bytes.subarray(-EDGE_BYTES).toString("latin1"));
      return this.refuse(id, ErrorCode.ParseError, "Parse error: a line was not valid UTF-8; send one JSON-RPC message per line, encoded as UTF-8");
    }
    let json: unknown;
    try {
      json = JSON.parse(text.replace(/\r$/, ""));
    } catch {
      return this.refuse(null, ErrorCode.ParseError, "Parse error: a line was not JSON; send one JSON-RPC message per line");
    }
    // A batch (JSON-RPC 2.0; MCP 2025-03-26, which the server still speaks, says a server MUST take
    // one): each of its messages is read in turn and answered on a line of its own, as the client's
    // SDK reads answers. It was refused whole with id null, and the client waited for every call in it.
    if (Array.isArray(json) && json.length > 0) {
      for (const member of json) this.receive(member);
    } else {
      this.receive(json);
    }
  }

  private receive(json: unknown): void {
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      return this.refuse(idOfInvalidRequest(json), ErrorCode.InvalidRequest, "Invalid Request: a line was JSON but not a JSON-RPC 2.0 request, notification or response");
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.awaitAnswer(message.id);
    this.onmessage?.(message);
  }

  /** How many requests read so far have not been answered yet. */
  get inFlight(): number {
    return this.unansweredCount;
  }

  /**
   * Resolves once every request read so far has been answered: the client may end stdin right
   * after its last request (a piped batch, a half-closed pipe) and still reads the answers, and a
   * write it asked for is never stored unanswered.
   */
  settled(): Promise<void> {
    if (this.unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.onSettled = resolve));
  }

  private awaitAnswer(id: RequestId): void {
    this.unanswered.set(id, (this.unanswered.get(id) ?? 0) + 1);
    this.unansweredCount++;
    this.pace();
  }

  /** Stops reading while it runs too far ahead of the calls or of the client (MAX_CALLS_IN_FLIGHT), and reads again once back under. */
  private pace(): void {
    const ahead = this.unansweredCount >= MAX_CALLS_IN_FLIGHT || this.stdout.writableLength > MAX_UNREAD_ANSWER_BYTES;
    if (ahead === this.paced || !this.reading) return;
    this.paced = ahead;
    if (ahead) this.stdin.pause();
    else this.stdin.resume();
  }

  private answered(message: JSONRPCMessage): void {
    if (!("method" in message)) this.settle((message as { id?: RequestId }).id);
  }

  /**
   * A request the server ended without an answer: the client cancelled it (notifications/cancelled),
   * and the SDK sends nothing for a cancelled request. Left counted, it kept the server from ever
   * settling: once stdin ended it never closed, and Node ended it with exit code 13.
   */
  endedUnanswered(id: RequestId): void {
    this.settle(id);
  }

  private settle(id: RequestId | undefined): void {
    const waiting = id === undefined ? undefined : this.unanswered.get(id);
    if (id === undefined || waiting === undefined) return;
    if (waiting > 1) this.unanswered.set(id, waiting - 1);
    else this.unanswered.delete(id);
    this.unansweredCount--;
    if (this.paced) this.pace();
    if (this.unanswered.size === 0) this.onSettled?.();
  }

  private refuse(id: RequestId | null, code: ErrorCode, message: string): void {
    this.log(message);
    // Counted as read, so that its answer does not count for a request of the same id still running.
    if (id !== null) this.awaitAnswer(id);
    // The SDK's types allow no id on an error (JSON-RPC 2.0 requires null when it cannot be read).
    const answer = { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
    this.send(answer).catch((error: unknown) => this.log(`could not answer an unreadable line: ${String(error)}`));
  }

  async start(): Promise<void> {
    this.reading = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("error", this.onError);
    // Kept after close: a write still under way may fail after it.
    this.stdout.on("error", this.onOutputError);
  }

  /** Reads no more lines; a line begun is dropped. Errors of stdin are still reported, never left unhandled. */
  stopReading(): void {
    this.reading = false;
    this.paced = false;
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.pieces = [];
    this.lineBytes = 0;
    this.head = this.tail = null;
  }

  async close(): Promise<void> {
    this.stopReading();
    this.stdin.off("error", this.onError);
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.answered(message);
    if (this.outputFailure) return Promise.resolve();
    const pieces = messagePieces(message);
    let flushed = true;
    // Corked, the pieces leave in one writev instead of a system call each: a 300-entry
    // get_handoff took 2-5 % less (five interleaved runs on the bench machine).
    this.stdout.cork();
    for (const piece of pieces) flushed = this.stdout.write(piece);
    this.stdout.uncork();
    if (flushed) return Promise.resolve();
    this.pace();
    return this.drained();
  }

  /**
   * Resolves at stdout's next drain, or when it closes (a failed stdout never drains). Shared by
   * every answer waiting for it: a listener each gave Node's leak warning on stderr once eleven
   * answers waited for a client that reads slowly.
   */
  private drained(): Promise<void> {
    this.nextDrain ??= new Promise((resolve) => {
      const done = () => {
        this.stdout.off("drain", done);
        this.stdout.off("close", done);
        this.nextDrain = null;
        if (this.paced) this.pace();
        resolve();
      };
      this.stdout.on("drain", done);
      this.stdout.on("close", done);
    });
    return this.nextDrain;
  }
}

const tooLong = (bytes: number) =>
  `Invalid Request: a message of ${bytes} bytes is over the ${MAX_LINE_BYTES / KiB} KiB Baton reads in one line; ` +
  `it was dropped unread and nothing was stored. Send less: an entry's content is at most ${MAX_CONTENT_BYTES / KiB} KiB, a shift document ${MAX_SHIFT_DOCUMENT_BYTES / KiB} KiB`;
