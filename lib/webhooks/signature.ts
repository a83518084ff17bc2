import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signatures as the large forges and payment providers make them: HMAC-SHA256 over
 * `<unix seconds>.<body>` with the hook's secret, sent as `X-Baton-Signature: t=<unix>,v1=<hex>`.
 * The timestamp inside the signed text lets a receiver refuse replays of old deliveries.
 */
export const SIGNATURE_HEADER = "x-baton-signature";

export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signPayload(secret, timestamp, body)}`;
}

/** What a receiver does (and the tests do): recompute and compare in constant time, within `toleranceS` of now. */
export function verifySignature(secret: string, header: string, body: string, nowS = Math.floor(Date.now() / 1000), toleranceS = 300): boolean {
  const parts = Object.fromEntries(header.split(",").map((part) => part.split("=", 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || !parts.v1 || Math.abs(nowS - timestamp) > toleranceS) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body), "hex");
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
