// Users in PostgreSQL: the queries only. The pool, its size and time limit
// (database:poolSize, database:timeout), the health check, the session per
// request and the disposal are Kit's (addDatabase in service.ts); the table
// is migrations/001_create_users.sql.
import type { Queryable } from "@vendor/kit-platform/database";
import type { NewUser, User, UserStore } from "./users.ts";

interface UserRow {
  id: string;
  name: string;
  email: string;
  created_at: Date;
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    createdAt: row.created_at.toISOString(),
  };
}

/** Users kept in the table `users`, through one request's session. */
export class PostgresUserStore implements UserStore {
  readonly #db: Queryable;

  /** @param db The request's session (the scoped service `db`). */
  constructor(db: Queryable) {
    this.#db = db;
  }

  /**
   * @param user The validated new user.
   * @returns The stored user.
   */
  async create(user: NewUser): Promise<User> {
    const { rows } = await this.#db.query<UserRow>(
      "INSERT INTO users (id, name, email) VALUES ($1, $2, $3) RETURNING id, name, email, created_at",
      [crypto.randomUUID(), user.name, user.email],
    );
    return toUser(rows[0]);
  }

  /**
   * @param id The user id (a UUID).
   * @returns The user, or `undefined`.
   */
  async get(id: string): Promise<User | undefined> {
    const { rows } = await this.#db.query<UserRow>(
      "SELECT id, name, email, created_at FROM users WHERE id = $1",
      [id],
    );
    return rows.length === 0 ? undefined : toUser(rows[0]);
  }
}
