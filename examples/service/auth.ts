// Sign-in for the page: short-lived access tokens (JSON Web Tokens signed with
// HMAC-SHA-256 under auth:jwtSecret, JWT_SECRET) and refresh tokens kept in
// memory, handed to the browser in an HttpOnly cookie. A demonstration: any
// name signs in, without a password; put your identity provider here.
import type { IConfiguration } from "@vendor/kit-platform-configuration";

/** The claims of an access token. */
export interface TokenClaims {
  /** The signed-in name. */
  readonly sub: string;
  /** A unique id of the token. */
  readonly jti: string;
  /** Issued at, in seconds since the epoch. */
  readonly iat: number;
  /** Expiry, in seconds since the epoch. */
  readonly exp: number;
}

/** Options of {@linkcode Authenticator}. */
export interface AuthenticatorOptions {
  /** The signing secret; a random one (lost on restart) when empty. */
  secret?: string;
  /** Lifetime of an access token in seconds. Default 900. */
  tokenExpiry?: number;
  /** Lifetime of a refresh token in seconds. Default 86400. */
  refreshExpiry?: number;
  /** Refresh tokens kept at most (the oldest go first). Default 10000. */
  maxSessions?: number;
}

/** The name of the cookie that holds the refresh token. */
export const REFRESH_COOKIE = "kit_refresh";

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Signs and checks access tokens; keeps the refresh tokens. */
export class Authenticator {
  readonly #key: Promise<CryptoKey>;
  readonly #tokenExpiry: number;
  readonly #refreshExpiry: number;
  readonly #maxSessions: number;
  // Refresh token → who and until when (insertion order = age).
  readonly #sessions = new Map<string, { name: string; expires: number }>();
  readonly #header = base64url(
    encoder.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })),
  );
  /** Whether the secret was generated (not configured). */
  readonly generatedSecret: boolean;

  /**
   * @param options Secret and lifetimes.
   * @throws {RangeError} When a lifetime is not a whole number of seconds >= 1.
   */
  constructor(options: AuthenticatorOptions = {}) {
    const secret = options.secret ?? "";
    this.generatedSecret = secret === "";
    this.#tokenExpiry = seconds(
      "auth:tokenExpiry (AUTH_TOKEN_EXPIRY)",
      options.tokenExpiry,
      900,
    );
    this.#refreshExpiry = seconds(
      "refreshExpiry",
      options.refreshExpiry,
      86_400,
    );
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#key = crypto.subtle.importKey(
      "raw",
      this.generatedSecret
        ? crypto.getRandomValues(new Uint8Array(32))
        : encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /**
   * From `auth:jwtSecret` (`JWT_SECRET`) and `auth:tokenExpiry`
   * (`AUTH_TOKEN_EXPIRY`, seconds).
   *
   * @param config The configuration.
   * @returns The authenticator.
   * @throws {RangeError} When `auth:tokenExpiry` is not a whole number of
   * seconds from 1 to 31536000.
   */
  static fromConfiguration(config: IConfiguration): Authenticator {
    const raw = config.getValue<unknown>("auth:tokenExpiry", 900);
    const expiry = typeof raw === "string" && /^\d+$/.test(raw.trim())
      ? Number(raw)
      : raw;
    if (typeof expiry !== "number" || !Number.isInteger(expiry)) {
      throw new RangeError(
        `auth:tokenExpiry (AUTH_TOKEN_EXPIRY) must be a whole number of seconds from 1 to 31536000: ${
          String(raw)
        }`,
      );
    }
    return new Authenticator({
      secret: String(config.getValue<unknown>("auth:jwtSecret", "") ?? ""),
      tokenExpiry: expiry,
    });
  }

  /** Lifetime of an access token in seconds. */
  get tokenExpiry(): number {
    return this.#tokenExpiry;
  }

  /** Lifetime of a refresh token in seconds. */
  get refreshExpiry(): number {
    return this.#refreshExpiry;
  }

  /**
   * Signs a new access token for `name`.
   *
   * @param name The signed-in name.
   * @returns The token.
   */
  async issue(name: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: TokenClaims = {
      sub: name,
      jti: crypto.randomUUID(),
      iat: now,
      exp: now + this.#tokenExpiry,
    };
    const body = `${this.#header}.${
      base64url(encoder.encode(JSON.stringify(claims)))
    }`;
    const signature = await crypto.subtle.sign(
      "HMAC",
      await this.#key,
      encoder.encode(body),
    );
    return `${body}.${base64url(new Uint8Array(signature))}`;
  }

  /**
   * Checks an access token: its signature, then its expiry.
   *
   * @param token The token from `Authorization: Bearer <token>`.
   * @returns The claims, or why it is refused.
   */
  async verify(
    token: string,
  ): Promise<{ claims: TokenClaims } | { reason: string }> {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== this.#header) {
      return { reason: "the token is not one this service issued" };
    }
    let valid = false;
    try {
      valid = await crypto.subtle.verify(
        "HMAC",
        await this.#key,
        fromBase64url(parts[2]),
        encoder.encode(`${parts[0]}.${parts[1]}`),
      );
    } catch {
      valid = false;
    }
    if (!valid) return { reason: "the token's signature does not match" };
    const claims = JSON.parse(
      new TextDecoder().decode(fromBase64url(parts[1])),
    ) as TokenClaims;
    if (claims.exp * 1000 <= Date.now()) {
      return { reason: "the token has expired" };
    }
    return { claims };
  }

  /**
   * Opens a session: a refresh token for `name`.
   *
   * @param name The signed-in name.
   * @returns The refresh token (for the cookie).
   */
  openSession(name: string): string {
    const token = randomToken();
    this.#sessions.set(token, {
      name,
      expires: Date.now() + this.#refreshExpiry * 1000,
    });
    while (this.#sessions.size > this.#maxSessions) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    return token;
  }

  /**
   * The name of a live session.
   *
   * @param refreshToken The refresh token from the cookie.
   * @returns The name, or `undefined` when unknown or expired.
   */
  session(refreshToken: string | undefined): string | undefined {
    if (refreshToken === undefined) return undefined;
    const session = this.#sessions.get(refreshToken);
    if (session === undefined) return undefined;
    if (session.expires <= Date.now()) {
      this.#sessions.delete(refreshToken);
      return undefined;
    }
    return session.name;
  }

  /**
   * Ends a session.
   *
   * @param refreshToken The refresh token from the cookie.
   */
  closeSession(refreshToken: string | undefined): void {
    if (refreshToken !== undefined) this.#sessions.delete(refreshToken);
  }
}

function seconds(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1 || chosen > 31_536_000) {
    throw new RangeError(
      `${name} must be a whole number of seconds from 1 to 31536000: ${
        String(value)
      }`,
    );
  }
  return chosen;
}
