-- Monitoring: rate-limit refusals counted per category and minute by every process, and indexes
-- for the time-window aggregates of the monitoring routes.

create table monitoring_rate_refusals (
  category text not null,
  minute timestamptz not null,
  count integer not null,
  primary key (category, minute)
);

create index if not exists jobs_created_idx on jobs (created_at);
create index if not exists jobs_finished_idx on jobs (finished_at) where status = 'failed';
create index if not exists job_trace_started_idx on job_trace (started_at);
create index if not exists webhook_deliveries_created_idx on webhook_deliveries (created_at);
