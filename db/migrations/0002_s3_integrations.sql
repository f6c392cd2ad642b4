CREATE TABLE `s3_integrations` (
	`team_id` text PRIMARY KEY NOT NULL,
	`bucket` text NOT NULL,
	`region` text NOT NULL,
	`access_key_id` text NOT NULL,
	`secret_access_key_enc` text NOT NULL,
	`endpoint` text,
	`default_prefix` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
