SET client_min_messages = warning;
BEGIN;
SELECT pg_advisory_xact_lock(7073726);
CREATE TABLE IF NOT EXISTS coordrun_explore_runs (
  id bigserial PRIMARY KEY,
  script text NOT NULL,
  digest text NOT NULL,
  arguments text NOT NULL,
  snapshot text,
  lease double precision NOT NULL,
  alive_until timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS coordrun_explore_states (
  run bigint NOT NULL REFERENCES coordrun_explore_runs (id) ON DELETE CASCADE,
  number integer NOT NULL,
  key text NOT NULL,
  path text NOT NULL,
  PRIMARY KEY (run, number),
  UNIQUE (run, key)
);
CREATE TABLE IF NOT EXISTS coordrun_explore_batches (
  run bigint NOT NULL REFERENCES coordrun_explore_runs (id) ON DELETE CASCADE,
  first integer NOT NULL,
  count integer NOT NULL,
  claims integer NOT NULL DEFAULT 0,
  worker text,
  lease_until timestamptz,
  answers text,
  PRIMARY KEY (run, first)
);
COMMIT;
