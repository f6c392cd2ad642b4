ALTER TABLE "jobs" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "request_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_team_idempotency_key" ON "jobs" USING btree ("team_id","idempotency_key");