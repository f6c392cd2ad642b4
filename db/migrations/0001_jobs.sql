CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`status` text NOT NULL,
	`template_id` text NOT NULL,
	`definition` text NOT NULL,
	`data` text NOT NULL,
	`export_type` text DEFAULT 'url' NOT NULL,
	`filename` text NOT NULL,
	`expiration` integer NOT NULL,
	`store_s3` integer DEFAULT false NOT NULL,
	`s3_filepath` text,
	`s3_bucket` text,
	`pdf_variant` text,
	`webhook_url` text,
	`webhook_secret_enc` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	`result_url` text,
	`result_filename` text,
	`result_expires_at` text,
	`result_s3_bucket` text,
	`result_s3_key` text,
	`error_message` text,
	`error_code` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `jobs_team_created` ON `jobs` (`team_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_status` ON `jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text NOT NULL,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_status_code` integer,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_job` ON `webhook_deliveries` (`job_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);