-- A monitored value's entity_type is the monitored name of a kind of the table of kinds
-- (src/core/kinds.ts): the service checks the type and the value with that kind's validator
-- before storing it, so a new kind needs no migration. The column keeps the shape of such a name.
ALTER TABLE monitored_entities DROP CONSTRAINT monitored_entities_entity_type_check;
ALTER TABLE monitored_entities
  ADD CONSTRAINT monitored_entities_entity_type_check CHECK (entity_type ~ '^[a-z][a-z0-9_]{0,62}$');
