-- 0015_ticket_attachment_chunks: an upload is stored as it arrives, in
-- chunks of at most 1 MiB, each written in a short transaction of its own,
-- so that the server never holds a whole file in memory nor a database
-- transaction for as long as a client takes to send it. The chunks of one
-- attempt (upload_id) become the attachment's bytes only in the attempt's
-- last transaction, which records them in ticket_attachment_contents;
-- until then nothing reads them, and a failed attempt's chunks are deleted
-- (or pruned with their expired attachment). Contents written before this
-- step keep their bytes in data, with upload_id ''. Released: never edit;
-- add a step.
ALTER TABLE ticket_attachment_contents ADD COLUMN upload_id varchar(32) NOT NULL DEFAULT '';

CREATE TABLE ticket_attachment_chunks (
    attachment_id varchar(32) NOT NULL,
    upload_id varchar(32) NOT NULL,
    seq bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (attachment_id, upload_id, seq),
    CONSTRAINT fk_ticket_attachment_chunks_attachment FOREIGN KEY (attachment_id) REFERENCES ticket_attachments (id)
);
