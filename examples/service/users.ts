// Users: the model, the validation of a new user, the store interface and
// its in-memory implementation (used when no database is configured).

/** A stored user. */
export interface User {
  /** A UUID given by the service. */
  readonly id: string;
  /** The display name, 1 to 100 characters. */
  readonly name: string;
  /** The e-mail address. */
  readonly email: string;
  /** When the user was created, as an ISO 8601 string. */
  readonly createdAt: string;
}

/** What `POST /api/users` accepts. */
export interface NewUser {
  /** The display name, 1 to 100 characters. */
  readonly name: string;
  /** The e-mail address. */
  readonly email: string;
}

/** Where users are kept: PostgreSQL, or memory. */
export interface UserStore {
  /** Creates a user and returns it with its id and creation time. */
  create(user: NewUser): Promise<User>;
  /** The user with this id, or `undefined`. */
  get(id: string): Promise<User | undefined>;
}

/** A request body that is not a valid new user; `field` names the culprit. */
export class UserValidationError extends Error {
  /** The field at fault (`body` when the body is not a JSON object). */
  readonly field: string;

  /**
   * @param field The field at fault.
   * @param message What is wrong and what is expected.
   */
  constructor(field: string, message: string) {
    super(message);
    this.name = "UserValidationError";
    this.field = field;
  }
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Checks a request body and returns the new user it describes.
 *
 * @param body The parsed JSON body.
 * @returns The trimmed name and e-mail address.
 * @throws {UserValidationError} Naming the first field at fault.
 */
export function validateNewUser(body: unknown): NewUser {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new UserValidationError(
      "body",
      'The request body must be a JSON object such as {"name":"Ada","email":"ada@example.com"}',
    );
  }
  const { name, email } = body as Record<string, unknown>;
  if (typeof name !== "string" || name.trim() === "" || name.length > 100) {
    throw new UserValidationError(
      "name",
      "name is required: a non-empty string of at most 100 characters",
    );
  }
  if (typeof email !== "string" || !EMAIL.test(email.trim())) {
    throw new UserValidationError(
      "email",
      "email is required: an address such as ada@example.com",
    );
  }
  return { name: name.trim(), email: email.trim() };
}

/**
 * Whether `id` has the shape of a user id (a UUID).
 *
 * @param id The id from the request path.
 * @returns `true` for a UUID.
 */
export function isUserId(id: string): boolean {
  return UUID.test(id);
}

/** Users in a Map: the store when no database is configured. */
export class MemoryUserStore implements UserStore {
  readonly #users = new Map<string, User>();

  /**
   * @param user The validated new user.
   * @returns The stored user.
   */
  create(user: NewUser): Promise<User> {
    const stored: User = {
      id: crypto.randomUUID(),
      name: user.name,
      email: user.email,
      createdAt: new Date().toISOString(),
    };
    this.#users.set(stored.id, stored);
    return Promise.resolve(stored);
  }

  /**
   * @param id The user id.
   * @returns The user, or `undefined`.
   */
  get(id: string): Promise<User | undefined> {
    return Promise.resolve(this.#users.get(id.toLowerCase()));
  }
}
