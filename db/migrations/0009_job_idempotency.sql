ALTER TABLE `jobs` ADD `idempotency_key` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `request_hash` text;--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_team_idempotency_key` ON `jobs` (`team_id`,`idempotency_key`);