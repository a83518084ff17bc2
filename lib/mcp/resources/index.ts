import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ListResourcesResult,
  type ReadResourceResult,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import { HANDOFF_ID_PATTERN, HANDOFF_ID_SHAPE } from "../../handoffs/schemas";
import { loadAgents, loadHandoffs } from "../domain";
import { answeringRequestErrors } from "../request-errors";
import type { ToolContext } from "../tool-kit";
import { threadMarkdown } from "./thread-markdown";
import { currentCaller, defaultSideOf } from "../../caller";
import type { Subscription } from "../../changes/feed";
import type { ChangeFilter } from "../../changes/types";

/**
 * MCP resources: each handoff as `baton://handoffs/<id>` (Markdown, entries new to the reading
 * side marked) and each shift document as `baton://agents/<id>/handoff` (reading it is the
 * successor's read, recorded on the handoff). `resources/list` pages with a cursor; with
 * `subscriptions`, `resources/subscribe` sends one `notifications/resources/updated` per write
 * whenever the change feed (lib/changes, fed by SQLite triggers from any process) reports one.
 * A URI that names nothing answers the spec's "Resource not found" (RESOURCE_NOT_FOUND).
 * The handlers are set on the protocol server directly: the SDK's own resources/read answers
 * -32602 for a URI no template matches, and its resources/list has no paging.
 */

/** Resources per `resources/list` page. */
export const RESOURCES_PAGE_SIZE = 50;

/** What a read is dispatched on; the id in it is checked by the domain (or HANDOFF_ID_PATTERN). */
const HANDOFF_PATH = /^baton:\/\/handoffs\/([^/]*)$/;
const SHIFT_DOCUMENT_PATH = /^baton:\/\/agents\/([^/]*)\/handoff$/;

export const handoffUri = (id: string) => `baton://handoffs/${id}`;

/**
 * JSON-RPC code for "Resource not found" in MCP 2025-11-25 (the SDK's latest protocol version),
 * server/resources#error-handling, with `data: { uri }`. The SDK has no constant for it.
 */
export const RESOURCE_NOT_FOUND = -32002;

const resourceNotFound = (uri: string, message: string) => new McpError(RESOURCE_NOT_FOUND, message, { uri });

const TEMPLATES: ResourceTemplate[] = [
  {
    name: "handoff",
    title: "Handoff thread",
    uriTemplate: "baton://handoffs/{id}",
    description: "A handoff as Markdown, entries new to your side first and marked NEW",
    mimeType: "text/markdown",
  },
  {
    name: "shift-document",
    title: "Shift document",
    uriTemplate: "baton://agents/{id}/handoff",
    description: "The document an agent left its successor (id: the agent who handed off, or its successor); reading it records the successor's read",
    mimeType: "text/markdown",
  },
];

/** Where a listing stands: handoffs first (by page), then shift documents (after a record id). */
type Cursor = { kind: "handoffs"; page: number } | { kind: "documents"; afterId: number };

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");

function decodeCursor(raw: string | undefined): Cursor {
  if (raw === undefined) return { kind: "handoffs", page: 1 };
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    if (value.kind === "handoffs" && Number.isSafeInteger(value.page) && value.page >= 1) return value;
    if (value.kind === "documents" && Number.isSafeInteger(value.afterId) && value.afterId >= 0) return value;
  } catch {
    // Falls through to the refusal below.
  }
  throw new McpError(ErrorCode.InvalidParams, "cursor is not one this server gave out: pass nextCursor from the previous resources/list answer, or none to start over");
}

async function listPage(cursor: Cursor): Promise<ListResourcesResult> {
  if (cursor.kind === "handoffs") {
    const { findHandoffs } = await loadHandoffs();
    const page = await findHandoffs({ page: cursor.page, perPage: RESOURCES_PAGE_SIZE });
    const next: Cursor = page.page < page.pageCount ? { kind: "handoffs", page: page.page + 1 } : { kind: "documents", afterId: 0 };
    return {
      resources: page.items.map((item) => ({
        uri: handoffUri(item.id),
        name: item.id,
        title: item.title,
        description: `Handoff (${item.status}${item.project ? `, ${item.project}` : ""}): ${item.entryCount} entries; chat ${item.chatUnread} new, code ${item.codeUnread} new`,
        mimeType: "text/markdown",
      })),
      nextCursor: encodeCursor(next),
    };
  }
  const { listShiftDocuments, shiftDocumentUri } = await loadAgents();
  const documents = await listShiftDocuments({ afterId: cursor.afterId, limit: RESOURCES_PAGE_SIZE });
  return {
    resources: documents.items.map((item) => ({
      uri: shiftDocumentUri(item.agentId),
      name: `${item.shortId}-handoff`,
      title: `Shift document of agent ${item.shortId} (${item.personaSlug})`,
      description: `${item.reason} handoff of ${item.name}, ${item.createdAt}; reading it records the successor's read`,
      mimeType: "text/markdown",
    })),
    ...(documents.nextAfterId !== null && { nextCursor: encodeCursor({ kind: "documents", afterId: documents.nextAfterId }) }),
  };
}

/** A resource request's failure as its JSON-RPC error (lib/mcp/request-errors.ts): a URI that names nothing is "Resource not found". */
function asResourceError<T>(work: () => Promise<T>, context: ToolContext, uri: string): Promise<T> {
  return answeringRequestErrors(work, {
    notFound: (message) => resourceNotFound(uri, message),
    data: { uri },
    log: context.log,
    request: `resource ${uri}`,
    unexpected: `Baton could not read ${uri}; check the Baton server's log`,
  });
}

async function readHandoff(uri: string, id: string, context: ToolContext): Promise<ReadResourceResult> {
  if (!HANDOFF_ID_PATTERN.test(id)) throw resourceNotFound(uri, `${uri} names no handoff: use baton://handoffs/${HANDOFF_ID_SHAPE}`);
  const { getHandoff } = await loadHandoffs();
  const side = defaultSideOf(currentCaller());
  const thread = await getHandoff({ id, asClient: side, repoPath: context.workingFolder });
  return { contents: [{ uri, mimeType: "text/markdown", text: threadMarkdown(thread, side) }] };
}

async function readShiftDocument(uri: string, agentRef: string, context: ToolContext): Promise<ReadResourceResult> {
  const { getShiftDocument } = await loadAgents();
  const document = await getShiftDocument({ agentId: agentRef, repoPath: context.workingFolder });
  const text = document.staleness ? `> ${document.staleness.block}\n\n${document.content}` : document.content;
  return { contents: [{ uri, mimeType: "text/markdown", text }] };
}

/** resources/read: a handoff or a shift document, else "Resource not found". */
function readResource(uri: string, context: ToolContext): Promise<ReadResourceResult> {
  return asResourceError(
    async () => {
      const handoff = HANDOFF_PATH.exec(uri);
      if (handoff) return readHandoff(uri, handoff[1], context);
      const document = SHIFT_DOCUMENT_PATH.exec(uri);
      if (document) return readShiftDocument(uri, document[1], context);
      throw resourceNotFound(uri, `${JSON.stringify(uri.slice(0, 100))} is not a Baton resource: read baton://handoffs/<hof_id> or baton://agents/<agent id>/handoff (resources/list names them)`);
    },
    context,
    uri,
  );
}

/**
 * The change-feed filter a subscription to `uri` follows, once its subject is found as reading the
 * URI finds it: a handoff, or an agent named as reads name it (integer id, session UUID or its
 * 8-hex prefix), whose shift handoff the feed's rows carry by integer id. A subject that does not
 * exist is refused, as reading it is: such a subscription would never hear anything. An agent
 * that has not handed off yet may be followed (its shift document is what the subscriber waits for).
 */
async function subscriptionFilterOf(uri: string): Promise<ChangeFilter> {
  const handoff = HANDOFF_PATH.exec(uri);
  if (handoff && HANDOFF_ID_PATTERN.test(handoff[1])) {
    await (await loadHandoffs()).requireHandoff(handoff[1]);
    return { handoffId: handoff[1] };
  }
  const document = SHIFT_DOCUMENT_PATH.exec(uri);
  if (document) return { agentId: await (await loadAgents()).resolveAgentId(document[1]), subjects: ["shift_handoff"] };
  throw resourceNotFound(uri, `cannot subscribe to ${JSON.stringify(uri.slice(0, 100))}: subscribe to baton://handoffs/<hof_id> or baton://agents/<id>/handoff`);
}

/**
 * Resources one server (a stdio process, an HTTP session) may be subscribed to at once: more than
 * the threads and agents a client works with, and a bound on what a subscribe storm costs, since
 * every subscription is a change-feed subscriber that each change is matched against.
 */
export const MAX_SUBSCRIPTIONS = 256;

export type ResourceOptions = {
  /** Offer resources/subscribe: only on a transport that can carry notifications the client did not ask for (stdio). */
  subscriptions: boolean;
};

export function registerResources(server: McpServer, context: ToolContext, options: ResourceOptions): void {
  server.server.registerCapabilities({ resources: {} });
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
    answeringRequestErrors(() => listPage(decodeCursor(request.params?.cursor)), {
      notFound: (message) => new McpError(ErrorCode.InvalidParams, message),
      log: context.log,
      request: "resources/list",
      unexpected: "Baton could not list its resources; check the Baton server's log",
    }),
  );
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: TEMPLATES }));
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(request.params.uri, context));
  if (options.subscriptions) registerSubscriptions(server, context);
}

/**
 * resources/subscribe and unsubscribe, one change-feed subscription per subscribed URI, closed with
 * the server. The map holds each URI's subscription while it opens too: requests run concurrently
 * (a client may send two subscribes at once), and one opened apart from the map would outlive its
 * unsubscribe and the server.
 */
function registerSubscriptions(server: McpServer, context: ToolContext): void {
  server.server.registerCapabilities({ resources: { subscribe: true } });
  const subscribed = new Map<string, Promise<Subscription>>();
  const closeWhenOpen = (opening: Promise<Subscription>) => void opening.then((subscription) => subscription.close(), () => {});
  let closed = false;
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (!subscribed.has(uri)) {
      const filter = await asResourceError(() => subscriptionFilterOf(uri), context, uri);
      // The connection may have closed while the subject was looked up: its close has run, and a
      // subscription opened now would notify no one for as long as the process lives.
      if (closed) throw new McpError(ErrorCode.ConnectionClosed, "the connection closed before the subscription began");
      // Another subscribe of this URI may have opened it meanwhile.
      if (!subscribed.has(uri)) {
        if (subscribed.size >= MAX_SUBSCRIPTIONS) {
          throw new McpError(ErrorCode.InvalidParams, `this connection is subscribed to ${MAX_SUBSCRIPTIONS} resources, as many as it may be: unsubscribe from one first`, { uri });
        }
        const opening = openSubscription(server, context, uri, filter);
        subscribed.set(uri, opening);
        // A subscription that could not open is not held: the next subscribe tries again.
        opening.catch(() => {
          if (subscribed.get(uri) === opening) subscribed.delete(uri);
        });
      }
    }
    await subscribed.get(uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const opening = subscribed.get(request.params.uri);
    subscribed.delete(request.params.uri);
    if (opening) closeWhenOpen(opening);
    return {};
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    closed = true;
    for (const opening of subscribed.values()) closeWhenOpen(opening);
    subscribed.clear();
    previous?.();
  };
}

/**
 * A change-feed subscription that notifies `uri`. One write is often several changes (an entry
 * and its handoff's updated_at, a record created then stamped): the feed hands over all of a
 * transaction's rows in one synchronous pass, so they are gathered until the next microtask and
 * notified once.
 */
async function openSubscription(server: McpServer, context: ToolContext, uri: string, filter: ChangeFilter): Promise<Subscription> {
  // Loaded on the first subscription: the feed opens its connection (and, on PostgreSQL, its LISTEN).
  const { subscribe } = await import("../../changes/feed");
  let pending = false;
  return subscribe({ filter }, () => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      server.server.sendResourceUpdated({ uri }).catch((error: unknown) => context.log(`could not notify ${uri}: ${String(error)}`));
    });
  });
}
