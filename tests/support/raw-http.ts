import http from "node:http";

export type RawAnswer = { status: number; body: string; headers: http.IncomingHttpHeaders };

/**
 * One request with exactly the given headers and path: fetch and Playwright would set Host, Origin
 * and more themselves, and resolve `..` in the path.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  /** The loopback address to send from (`127.0.0.2`): another client, as a proxy sees it. */
  localAddress?: string,
): Promise<RawAnswer> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request({ host: base.hostname, port: base.port, path, method, headers, setHost: false, localAddress }, (response) => {
      answered = true;
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }));
      response.on("error", reject);
      response.on("close", () => response.complete || reject(new Error("the answer was cut short")));
    });
    // A server that answered, then stopped reading a body it refused (its bound on what it drops),
    // makes the rest of the body's write fail (EPIPE): the client has its answer all the same.
    request.on("error", (error) => answered || reject(error));
    request.end(body);
  });
}
