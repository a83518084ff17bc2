import { z } from "zod";

/**
 * What both sides need to know about access: roles, the token-name pattern and their labels.
 * Client-safe: no database, no crypto.
 */
export const ROLES = ["operator", "agent"] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  operator: "Operator: everything, including token management",
  agent: "Agent: MCP tools and the thread/agent API, no token management",
};

export const MAX_TOKEN_NAME_LENGTH = 40;
export const TOKEN_NAME_PATTERN = new RegExp(`^[a-z0-9][a-z0-9._-]{0,${MAX_TOKEN_NAME_LENGTH - 1}}$`);

export const tokenNameSchema = z
  .string({ error: "name is required" })
  .trim()
  .toLowerCase()
  .regex(TOKEN_NAME_PATTERN, `name: 1-${MAX_TOKEN_NAME_LENGTH} characters, lowercase letters, digits, '.', '_' or '-', starting with a letter or digit`);

export const roleSchema = z.enum(ROLES, { error: 'role must be "operator" or "agent"' });

/** The cookie that carries an operator's dashboard session. */
export const SESSION_COOKIE = "baton_session";
/** How long a sign-in lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
