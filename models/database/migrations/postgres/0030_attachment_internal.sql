-- 0030_attachment_internal: a file support staff attach to an internal
-- note is internal too: only staff list, open and download it. Every file
-- before this step was attached by an owner, in the open.

ALTER TABLE ticket_attachments ADD COLUMN internal boolean NOT NULL DEFAULT false;
