import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ErrorCode, McpError, type CallToolResult, type JSONRPCMessage, type RequestId, type ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { describeFieldErrors, fieldErrorsOf } from "../validation";
import { rememberSerialized } from "./answer-lines";
import { toolErrorText } from "./tool-errors";

/**
 * What every tool call knows besides its arguments. The side of a call that omits `as_client` is
 * not here: the domain takes it from the caller (lib/caller.ts's defaultSideOf), as every door does.
 */
export type ToolContext = {
  /** Diagnostics; never stdout (stdout carries only MCP messages over stdio). */
  log: (line: string) => void;
  /** The client's working folder when the server runs beside it (stdio): where its repository is read (lib/git). */
  workingFolder?: string;
};

export type ToolDefinition<Input extends z.ZodObject, Output extends z.ZodObject> = {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: Output;
  annotations: ToolAnnotations;
  run: (args: z.output<Input>, context: ToolContext) => Promise<z.output<Output>>;
  /** A short text the model should read before the JSON (e.g. a staleness warning); null for none. */
  lead?: (result: z.output<Output>) => string | null;
  /** The domain's field names this tool takes under other names (`contextPercent` → `percent`), for its refusals. */
  argumentNames?: Readonly<Record<string, string>>;
};

/** Identity for typing: keeps each tool's argument and result types tied to its schemas. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

/**
 * The JSON of frozen answers, made once: a tool that answers again what it answered before (get_handoff
 * of an unchanged thread, lib/handoffs' remembered reads) hands over the same frozen object.
 */
const frozenJson = new WeakMap<object, string>();

function jsonOf(result: Record<string, unknown>): string {
  let text = frozenJson.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    if (Object.isFrozen(result)) frozenJson.set(result, text);
  }
  return text;
}

/** Answers whose text block is not their JSON (withTextBlock). */
const textBlocks = new WeakMap<object, string>();

/**
 * Gives a tool's answer a text block of its own instead of its JSON: what a client that passes its
 * model only `content` (Claude Desktop) shows it. The text must say everything in the structure a
 * model acts on; a program reads the structure. Returns `answer`.
 */
export function withTextBlock<T extends object>(answer: T, text: string): T {
  textBlocks.set(answer, text);
  return answer;
}

/** Frozen answers already found to fit their tool's output schema (a frozen answer cannot change). */
const fitting = new WeakMap<object, unknown>();

/**
 * Registers a tool whose result goes out twice: as `structuredContent` (checked against the
 * tool's `outputSchema`) and in a text block, for clients that read only text: the same JSON, or
 * the text the tool gave it (withTextBlock). Failures become tool errors (`isError: true`) with a
 * message the model can act on.
 */
export function registerTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  server: McpServer,
  tool: ToolDefinition<Input, Output>,
  context: ToolContext,
): void {
  const handler = async (args: z.output<Input>): Promise<CallToolResult> => {
    try {
      const output = await tool.run(args, context);
      const result = output as Record<string, unknown>;
      const lead = tool.lead?.(output);
      const text = textBlocks.get(result) ?? jsonOf(result);
      // Without a text of its own, the text block is the JSON.
      rememberSerialized(text, result, textBlocks.has(result) ? () => jsonOf(result) : () => text);
      const block = { type: "text" as const, text };
      return { content: lead ? [{ type: "text", text: lead }, block] : [block], structuredContent: result };
    } catch (error) {
      return { content: [{ type: "text", text: toolErrorText(tool.name, error, context.log, tool.argumentNames) }], isError: true };
    }
  };
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: tool.annotations,
    },
    // The SDK types the callback from the schema through conditional types it cannot resolve for
    // a generic `Input`; the handler's argument is exactly the parsed `tool.input`.
    handler as unknown as Parameters<McpServer["registerTool"]>[2],
  );
}

type OutputCheck = (tool: { outputSchema?: unknown }, result: CallToolResult, toolName: string) => Promise<void>;

/**
 * What a client's SDK checks answers with: the SDK's own Ajv validator, loaded and made on the
 * first compiling (not while the server starts, which a client waits for).
 */
let ajv: Promise<AjvJsonSchemaValidator> | undefined;
const ajvValidator = () => (ajv ??= import("@modelcontextprotocol/sdk/validation/ajv").then(({ AjvJsonSchemaValidator }) => new AjvJsonSchemaValidator()));
const validators = new WeakMap<z.ZodType, ((content: unknown) => boolean) | "compiling">();
/** The compilings started so far, settled. */
let compiled: Promise<void> = Promise.resolve();

/**
 * The compiled check of an output schema: the JSON Schema the SDK advertises for it
 * (z.toJSONSchema, draft-7, as output), which is what a client's SDK checks answers against. Ajv
 * reads the answer where it lies; zod's parse copies it, which for a fresh 300-entry get_handoff
 * answer was a fifth of the server's work (0.2 ms). Compiling takes 10-35 ms, so no call waits
 * for it: the first answer of each tool is checked by zod, and the compiling runs once that answer
 * is sent (the event loop's check phase). undefined until then.
 */
function compiledCheckOf(schema: z.ZodType): ((content: unknown) => boolean) | undefined {
  const known = validators.get(schema);
  if (known === undefined) {
    validators.set(schema, "compiling");
    const compiling = new Promise<void>((resolve) => setImmediate(resolve))
      .then(ajvValidator)
      .then((validator) => {
        const check = validator.getValidator(z.toJSONSchema(schema, { target: "draft-7", io: "output" }) as JsonSchemaType);
        validators.set(schema, (content) => check(content).valid);
      })
      // Without Ajv, zod goes on checking this tool's answers: the same verdicts, more slowly.
      .catch(() => undefined);
    compiled = compiled.then(() => compiling);
  }
  return typeof known === "function" ? known : undefined;
}

/** Resolves once every output check compiling so far has ended (tests: the answers after it are checked by Ajv). */
export function outputChecksCompiled(): Promise<void> {
  return compiled;
}

/**
 * Checks tool results against their output schemas synchronously. The SDK's own check (McpServer's
 * private `validateToolOutput`, replaced here on the instance) uses zod's safeParseAsync, which
 * turns off zod's compiled object parser and copies the answer; this one asks Ajv once compiled
 * (compiledCheckOf), zod before that and to word a refusal. tests/mcp-output-check.test.ts fails if the SDK renames the method.
 */
export function checkOutputsSynchronously(server: McpServer): void {
  const check: OutputCheck = async (tool, result, toolName) => {
    if (!(tool.outputSchema instanceof z.ZodType) || result.isError) return;
    if (!result.structuredContent) {
      throw new McpError(ErrorCode.InvalidParams, `Output validation error: Tool ${toolName} has an output schema but no structured content was provided`);
    }
    const content = result.structuredContent;
    if (fitting.get(content) === tool.outputSchema) return;
    // Ajv's verdict once compiled (undefined before); zod's parse decides before that, and words a refusal.
    const fits = compiledCheckOf(tool.outputSchema)?.(content);
    if (fits !== true) {
      const parsed = tool.outputSchema.safeParse(content);
      if (fits === false || !parsed.success) {
        const why = parsed.success ? "it does not fit the tool's advertised outputSchema" : z.prettifyError(parsed.error);
        throw new McpError(ErrorCode.InvalidParams, `Output validation error: Invalid structured content for tool ${toolName}: ${why}`);
      }
    }
    if (Object.isFrozen(content)) fitting.set(content, tool.outputSchema);
  };
  (server as unknown as { validateToolOutput: OutputCheck }).validateToolOutput = check;
}

/** What the SDK hands each request handler besides the request: its per-request abort signal and the request's id. */
type RequestHandlerExtra = { signal: AbortSignal; requestId: RequestId };
type RequestHandler = (request: unknown, extra: RequestHandlerExtra) => Promise<unknown>;

/**
 * Replaces each request handler the server has (call once all are registered) with `wrap`'s, in
 * the SDK's private handler map; tests/mcp-edges.test.ts fails if the map is renamed.
 */
function wrapEachRequestHandler(server: McpServer, wrap: (method: string, handler: RequestHandler) => RequestHandler): void {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, RequestHandler> })._requestHandlers;
  for (const [method, handler] of handlers) handlers.set(method, wrap(method, handler));
}

/**
 * A protocol error as it goes out: the SDK answers a request with a thrown error's code, data and
 * message, and an McpError's message begins "MCP error <code>: ", which the client's McpError puts
 * before it again, so every refusal read "MCP error -32002: MCP error -32002: resource … not found".
 */
class ProtocolRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const asSent = (error: McpError) => new ProtocolRefusal(error.code, error.message.replace(`MCP error ${error.code}: `, ""), error.data);

/**
 * Wraps each handler the server has (call this once all are registered): a request whose params
 * do not fit its method's schema (`tools/call` with `arguments` an array, `resources/read` with a
 * numeric `uri`, `initialize` without its fields) fails in the SDK's own parse with a ZodError,
 * which the SDK answered as -32603 Internal error with the issues' JSON as its message; it is
 * -32602 Invalid params with one line naming the fields. And every protocol error (Baton's and
 * the SDK's own McpErrors) goes out with its message once (ProtocolRefusal).
 */
export function refuseMalformedParams(server: McpServer): void {
  // The SDK's parse throws before the handler's promise exists: caught here either way.
  wrapEachRequestHandler(server, (method, handler) => async (request, extra) => {
    try {
      return await handler(request, extra);
    } catch (error) {
      if (error instanceof McpError) throw asSent(error);
      if (!(error instanceof z.core.$ZodError)) throw error;
      throw new ProtocolRefusal(ErrorCode.InvalidParams, `Invalid params for ${method}: ${describeFieldErrors(fieldErrorsOf(error as z.ZodError))}`);
    }
  });
}

/**
 * Calls `onEndedUnanswered` with the id of each request whose handler ended after the client
 * cancelled it: the SDK then sends no answer (MCP: a cancelled request gets none), and a transport
 * that waits for every request's answer before closing must stop waiting for that one. The abort
 * signal is the SDK's own per-request signal, so two requests sharing an id are told apart. Call
 * after refuseMalformedParams.
 */
export function reportCancelledRequests(server: McpServer, onEndedUnanswered: (id: RequestId) => void): void {
  wrapEachRequestHandler(server, (_method, handler) => async (request, extra) => {
    try {
      return await handler(request, extra);
    } finally {
      if (extra.signal.aborted) onEndedUnanswered(extra.requestId);
    }
  });
}

/**
 * The SDK keeps tools, prompts and resources in plain objects keyed by name, so a call naming
 * `constructor` or `__proto__` found Object's own and was answered "Tool constructor disabled".
 * Without a prototype only registered names are found, and any other is "not found". Call before
 * registering anything; tests/mcp-edges.test.ts fails if the SDK renames these fields.
 */
export function findOnlyRegisteredNames(server: McpServer): void {
  const registries = server as unknown as Record<"_registeredTools" | "_registeredPrompts" | "_registeredResources" | "_registeredResourceTemplates", object>;
  for (const name of ["_registeredTools", "_registeredPrompts", "_registeredResources", "_registeredResourceTemplates"] as const) Object.setPrototypeOf(registries[name], null);
}

type MessageExtra = Parameters<NonNullable<Transport["onmessage"]>>[1];
type RequestDispatch = { _onrequest: (request: JSONRPCMessage, extra?: MessageExtra) => void };

/**
 * Hands each request the transport read straight to the SDK's request handling. The SDK's
 * Protocol tells a message's kind by parsing it against the response schemas first: a request
 * costs two failed zod parses (each building its issues) and a third that succeeds, after the
 * transport's own parse of the same message. A message the transport found to be a request (a
 * method and an id: what it counts as awaiting an answer) is one; anything else goes the SDK's
 * way. Measured over stdio: 50-100 µs less server CPU per call. Call after connecting;
 * tests/mcp-output-check.test.ts fails if the SDK renames `_onrequest`.
 */
export function deliverRequestsDirectly(server: McpServer, transport: Transport): void {
  const classify = transport.onmessage;
  const { _onrequest } = server.server as unknown as RequestDispatch;
  if (!classify) throw new Error("deliverRequestsDirectly: connect the server to the transport first");
  const dispatch = _onrequest.bind(server.server);
  transport.onmessage = (message, extra) => ("method" in message && "id" in message ? dispatch(message, extra) : classify(message, extra));
}
