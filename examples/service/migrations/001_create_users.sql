-- The users of POST /api/users and GET /api/users/:id. Applied once at
-- start-up (addDatabase in service.ts) and recorded in kit_migrations.
-- IF NOT EXISTS: a database the service used before migrations existed
-- already has this table.
CREATE TABLE IF NOT EXISTS users (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
