-- hwf PostgreSQL store, schema version 5: the built-in Kanban board of the
-- Kanban lanes (they were files in one machine's state dir), so a run
-- parked on a card is continued by a runner on any machine once the card
-- ends, and `hwf kanban` on any machine drives the same cards.

-- Which board the lanes use: at most one row.
CREATE TABLE hwf_kanban_board (
    one    boolean PRIMARY KEY DEFAULT true CHECK (one),
    config text NOT NULL
);

-- One row per card (`card` is its JSON); created once per id (the key
-- refuses a second creator, who reads the first's card).
CREATE TABLE hwf_kanban_cards (
    id            text COLLATE "C" PRIMARY KEY,
    created_at_ms bigint NOT NULL,
    card          text NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
