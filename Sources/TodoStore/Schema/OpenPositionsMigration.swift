/// Migration 7 (contract v2): a todo's position counts open todos only. A done todo keeps its
/// order key — its place in the manual order, for when it is reopened — but is not counted and
/// has no position. The block table of `ManualOrder` counts open todos only from here on; its
/// triggers follow `done` as well as `rank`. Append-only, like every migration.
let openPositionsMigration = Migration(
    id: 7, name: "positions count open todos only",
    sql: """
        DROP TRIGGER todos_order_insert;
        DROP TRIGGER todos_order_delete;
        DROP TRIGGER todos_order_update;
        DELETE FROM todo_order_blocks;
        INSERT INTO todo_order_blocks (block, size)
            SELECT rank >> 24, COUNT(*) FROM todos WHERE done = 0 GROUP BY rank >> 24;
        CREATE TRIGGER todos_order_insert AFTER INSERT ON todos WHEN NEW.done = 0 BEGIN
            INSERT INTO todo_order_blocks (block, size) VALUES (NEW.rank >> 24, 1)
                ON CONFLICT (block) DO UPDATE SET size = size + 1;
        END;
        CREATE TRIGGER todos_order_delete AFTER DELETE ON todos WHEN OLD.done = 0 BEGIN
            UPDATE todo_order_blocks SET size = size - 1 WHERE block = OLD.rank >> 24;
            DELETE FROM todo_order_blocks WHERE block = OLD.rank >> 24 AND size = 0;
        END;
        -- An open todo leaves its block when it is completed or its key moves to another block, and
        -- enters one when it is reopened or its key arrives in another block.
        CREATE TRIGGER todos_order_leave AFTER UPDATE OF rank, done ON todos
            WHEN OLD.done = 0 AND (NEW.done <> 0 OR (NEW.rank >> 24) <> (OLD.rank >> 24)) BEGIN
            UPDATE todo_order_blocks SET size = size - 1 WHERE block = OLD.rank >> 24;
            DELETE FROM todo_order_blocks WHERE block = OLD.rank >> 24 AND size = 0;
        END;
        CREATE TRIGGER todos_order_enter AFTER UPDATE OF rank, done ON todos
            WHEN NEW.done = 0 AND (OLD.done <> 0 OR (NEW.rank >> 24) <> (OLD.rank >> 24)) BEGIN
            INSERT INTO todo_order_blocks (block, size) VALUES (NEW.rank >> 24, 1)
                ON CONFLICT (block) DO UPDATE SET size = size + 1;
        END;
        """)
