import "server-only";
import http from "node:http";
import { mediaType } from "../guard/policy";

/** What a POST to the dashboard carries that Next decodes: a form, or a page script's action arguments. */
type ActionBody = "form" | "arguments";

function actionBodyOf(incoming: http.IncomingMessage): ActionBody | null {
  if (incoming.method !== "POST") return null;
  const type = mediaType(incoming.headers["content-type"]);
  if (type === "multipart/form-data") return "form";
  if (type === "text/plain" && incoming.headers["next-action"] !== undefined) return "arguments";
  return null;
}

/** Why Next could not decode `body`, or null when it can. */
async function undecodable(kind: ActionBody, contentType: string, body: Buffer): Promise<string | null> {
  try {
    if (kind === "form") await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
    else JSON.parse(body.toString("utf8"));
    return null;
  } catch {
    return kind === "form" ? "the form's multipart body is malformed or cut short" : "the server action's arguments are not JSON";
  }
}

/**
 * A POST to the dashboard's paths as Next's server actions receive it, or why its body cannot be
 * decoded. Next answers a body it cannot decode (arguments that are not JSON, a multipart form cut
 * short) with a 500; such a body is read here first, whole (the guard has already bounded its
 * declared length and refused chunked ones), and refused with a 400. A decodable one goes to Next
 * as a request replaying the same bytes with the same line and headers.
 */
export async function screenedActionRequest(incoming: http.IncomingMessage): Promise<{ request: http.IncomingMessage } | { refusal: string }> {
  const kind = actionBodyOf(incoming);
  if (!kind) return { request: incoming };
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const refusal = await undecodable(kind, incoming.headers["content-type"] ?? "", body);
  if (refusal) return { refusal };
  const replay = new http.IncomingMessage(incoming.socket);
  replay.method = incoming.method;
  replay.url = incoming.url;
  replay.httpVersion = incoming.httpVersion;
  replay.httpVersionMajor = incoming.httpVersionMajor;
  replay.httpVersionMinor = incoming.httpVersionMinor;
  replay.headers = incoming.headers;
  replay.rawHeaders = incoming.rawHeaders;
  // Complete, as the parser marks a request read to its end: an incomplete one destroys its socket when it ends.
  replay.complete = true;
  replay.push(body);
  replay.push(null);
  return { request: replay };
}
