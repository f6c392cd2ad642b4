ALTER TABLE `credit_transactions` ADD `request_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `credit_transactions_job_reason` ON `credit_transactions` (`job_id`,`reason`);--> statement-breakpoint
CREATE UNIQUE INDEX `credit_transactions_request_reason` ON `credit_transactions` (`request_id`,`reason`);--> statement-breakpoint
ALTER TABLE `templates` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `delivery_id` text;--> statement-breakpoint
UPDATE `templates` SET `seq` = rowid;--> statement-breakpoint
CREATE TRIGGER `templates_seq` AFTER INSERT ON `templates` WHEN NEW.`seq` = 0 BEGIN UPDATE `templates` SET `seq` = NEW.rowid WHERE rowid = NEW.rowid; END;--> statement-breakpoint
UPDATE `webhook_deliveries` SET `delivery_id` = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) WHERE `delivery_id` IS NULL;
