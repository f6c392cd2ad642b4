CREATE TABLE `assets` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `assets_team_created` ON `assets` (`team_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `protection_enc` text;