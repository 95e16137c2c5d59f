"""Write a new Alembic revision for a change to the database's tables
(``src/nertz/server/store/schema.py``, or ``sheets.py``'s), then review it and commit it::

    .venv/bin/python tests/data/make_migration.py "chat messages"

Starts a private PostgreSQL (``tests/services.py``; Debian's package), upgrades it to
the newest revision in ``src/nertz/server/store/migrations/versions/``, and has Alembic
compare it with the tables the code declares: the difference is the new revision.
``tests/cluster/test_postgres.py`` fails until the revisions and the code agree.
After a rebase that brought someone else's revision, delete your unlanded one and run
this again, so the revisions stay one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from alembic import command

    from nertz.server.store.migrate import MIGRATIONS, alembic_config
    from tests.services import postgres

    before = set((MIGRATIONS / "versions").glob("*.py"))
    with postgres(fsync=False) as url:
        config = alembic_config(url=url)
        command.upgrade(config, "head")
        command.revision(config, message=sys.argv[1], autogenerate=True)
    written = sorted(set((MIGRATIONS / "versions").glob("*.py")) - before)
    ruff = Path(sys.executable).with_name("ruff")
    for path in written:
        subprocess.run([str(ruff), "check", "--fix", "-q", str(path)], check=False)
        subprocess.run([str(ruff), "format", "-q", str(path)], check=True)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
