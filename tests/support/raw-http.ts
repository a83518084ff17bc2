import http from "node:http";

export type RawAnswer = { status: number; body: string; headers: http.IncomingHttpHeaders };

/** One request with exactly the given headers: fetch and Playwright would set Host, Origin and more themselves. */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<RawAnswer> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, setHost: false }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }));
    });
    request.on("error", reject);
    request.end(body);
  });
}
