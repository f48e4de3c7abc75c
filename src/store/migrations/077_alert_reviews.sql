-- Issue #38: screening answers name the decided alert of each match (`metadata.review`) from a view
-- each node keeps in memory (src/alerts/review-view.ts). Every change of an alert's status or
-- decision, by whichever node or statement, tells the nodes which alert to read again; the partial
-- index serves each customer's first read of its decided alerts.

CREATE FUNCTION alerts_notify_review() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('alert_reviews', NEW.customer_id || ':' || NEW.id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER alerts_review_changed AFTER UPDATE OF status, decided_at ON alerts
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.decided_at IS DISTINCT FROM NEW.decided_at)
  EXECUTE FUNCTION alerts_notify_review();

CREATE INDEX alerts_customer_decided ON alerts (customer_id) WHERE decided_at IS NOT NULL;
