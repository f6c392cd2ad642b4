ALTER TABLE "jobs" ADD COLUMN "output" text DEFAULT 'pdf' NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "image_options" text;