ALTER TABLE `jobs` ADD `output` text DEFAULT 'pdf' NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `image_options` text;