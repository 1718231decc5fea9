-- hwf PostgreSQL store, schema version 3: journal payload chunks. A call's
-- request or result whose JSON is 4 KiB or more is kept outside its
-- journal line, split into content-defined chunks (hwf_core::payload); each
-- chunk is kept once, store-wide, under its BLAKE3 digest (32 bytes), so
-- prompts that extend the previous one, resumed runs and copies share them.
-- Chunks are never deleted.
CREATE TABLE hwf_chunks (
    id    bytea PRIMARY KEY CHECK (octet_length(id) = 32),
    bytes bytea NOT NULL
);
