-- 0012_ticket_text_counts: each ticket carries how many comments it has
-- (the description included), how many bytes their bodies take and who
-- wrote the description, kept by a trigger on ticket_comments. A list of
-- tickets counted every listed ticket's comments in an aggregate that
-- read each comment's row, and a commented ticket's write counted its
-- comments again under the ticket's lock. The trigger updates the ticket's
-- row, which every comment's writer has already locked (UpdateTicket) or
-- inserted (CreateTicket), so it takes no new lock. Released: never edit;
-- add a step.

ALTER TABLE tickets
    ADD COLUMN comment_rows bigint NOT NULL DEFAULT 0,
    ADD COLUMN comment_bytes bigint NOT NULL DEFAULT 0,
    ADD COLUMN description_author varchar(254);

UPDATE tickets t SET comment_rows = c.n, comment_bytes = c.bytes, description_author = c.requester
FROM (SELECT ticket_id, count(*) AS n, coalesce(sum(octet_length(body)), 0) AS bytes,
        max(CASE WHEN seq = 0 THEN author END) AS requester
      FROM ticket_comments GROUP BY ticket_id) c
WHERE c.ticket_id = t.id;

CREATE FUNCTION count_ticket_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE tickets SET comment_rows = comment_rows + 1,
            comment_bytes = comment_bytes + octet_length(NEW.body),
            description_author = CASE WHEN NEW.seq = 0 THEN NEW.author ELSE description_author END
        WHERE id = NEW.ticket_id;
    ELSE
        UPDATE tickets SET comment_rows = comment_rows - 1,
            comment_bytes = comment_bytes - octet_length(OLD.body),
            description_author = CASE WHEN OLD.seq = 0 THEN NULL ELSE description_author END
        WHERE id = OLD.ticket_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER count_ticket_comments AFTER INSERT OR DELETE ON ticket_comments
    FOR EACH ROW EXECUTE FUNCTION count_ticket_comments();
