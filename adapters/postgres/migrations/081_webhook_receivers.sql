-- Webhook receivers' circuit breakers, shared by every worker process: timeouts in a row, and the
-- end of the pause once they reach the threshold (WEBHOOK_BREAKER_THRESHOLD). A receiver that
-- answers (any status) is removed.
create table webhook_receivers (
  receiver text primary key,
  timeouts integer not null default 0,
  paused_until timestamptz,
  updated_at timestamptz not null default now()
);
