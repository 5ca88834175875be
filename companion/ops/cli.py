"""Commands for the person running a server (``flask --app companion groups …``).

Groups are reached by their links only; these commands are for whoever runs the server, on its
command line, never on a web page. They show figures, never names: ``list`` gives each group's
number of games and players and its last activity; ``link`` prints one group's link (for the
group that owned a server's games before groups existed); ``export`` writes one group's games as
the JSON export (``--with-links``: the operator's copy, with the links phones hold); ``import``
puts an export back (twice adds nothing); ``delete`` removes a group and everything in it;
``purge`` deletes the groups idle for more than ``GROUP_PURGE_DAYS`` days (off unless that is
configured, or ``--days`` is given).
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

import click
from flask import Flask, current_app
from flask.cli import AppGroup, with_appcontext
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from ..db import get_engine
from ..models import Game, Group
from ..play import groups

cli = AppGroup("groups", help="List, export, delete or purge groups (figures only, no names).")


def _session() -> Session:
    """A session on the database, once its schema is this code's (a command never migrates:
    `flask db upgrade` does)."""
    from ..db import check

    state = check(get_engine())
    if not state.is_ready:
        raise click.ClickException(f"schema: {state.problem}")
    return Session(get_engine(), expire_on_commit=False)


def _group(session: Session, group_id: int) -> Group:
    group = session.get(Group, group_id)
    if group is None:
        raise click.ClickException(f"no group {group_id}")
    return group


@cli.command("list")
def list_groups() -> None:
    """Every group: id, games, players, created, last activity (oldest activity first)."""
    with _session() as session:
        rows = groups.overview(session)
    click.echo(f"{'id':>6}  {'games':>6}  {'players':>7}  {'created':<16}  last activity")
    for row in rows:
        click.echo(f"{row.id:>6}  {row.games:>6}  {row.players:>7}  "
                   f"{row.created_at:%Y-%m-%d %H:%M}  {row.last_active:%Y-%m-%d %H:%M} UTC")
    click.echo(f"{len(rows)} groups")


@cli.command("link")
@click.argument("group_id", type=click.IntRange(1, 2**31 - 1))
def link(group_id: int) -> None:
    """Print a group's link (``PUBLIC_URL`` in front of it when configured)."""
    with _session() as session:
        group = _group(session, group_id)
        base = str(current_app.config.get("PUBLIC_URL") or "").rstrip("/")
        click.echo(f"{base}/group/{group.token}/")


@cli.command("export")
@click.argument("group_id", type=click.IntRange(1, 2**31 - 1))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="The file to write, readable by its owner only (default: standard output).")
@click.option("--with-links", is_flag=True,
              help="Also the group's link and every game's links (the operator's copy, for "
                   "`groups import` on another server: phones keep their links). Keep it safe: "
                   "whoever has it can open every game.")
def export(group_id: int, output: str, with_links: bool) -> None:
    """Write every game of a group, in progress or finished, as the JSON export (with the
    group's name). A file is written 0600, as ``flask backup`` writes: with ``--with-links`` it
    opens every game."""
    from ..play import export

    with _session() as session:
        group = _group(session, group_id)
        games = list(session.exec(select(Game).where(Game.group_id == group_id)
                                  .order_by(col(Game.id))))
        text = export.dumps(export.export(session, games, group=group, with_links=with_links))
    if output == "-":
        sys.stdout.write(text)
    else:
        descriptor = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(descriptor, 0o600)  # (a file that was there before keeps no wider mode)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
    click.echo(f"{len(games)} games exported" + (" with their links" if with_links else ""),
               err=True)


@cli.command("import")
@click.argument("file", type=click.File("rb"))
@click.option("--into", "group_id", type=click.IntRange(1, 2**31 - 1), default=None,
              help="The group to import into (default: the group whose link the file carries, "
                   "else a new group named as in the file).")
def import_(file: BinaryIO, group_id: int | None) -> None:
    """Put an export back into a group; games already in it (same code) are left as they are,
    so importing the same file twice adds nothing."""
    from ..history.export_format import TransferError
    from ..play import export

    raw = file.read()
    with _session() as session:
        try:
            if group_id is not None:
                _group(session, group_id)
            else:
                found = export.group_of_file(session, raw)
                group_id = found.id if found is not None else None
            done = export.import_file(session=session, raw=raw, group_id=group_id,
                                        new_group_name="Imported games")
        except TransferError as error:
            raise click.ClickException("nothing imported: " + "; ".join(
                problem.text() for problem in error.problems)) from None
    click.echo(f"group {done.group_id}: {len(done.added)} games imported, "
               f"{len(done.skipped)} already there, {done.players} new players")


@cli.command("delete")
@click.argument("group_id", type=click.IntRange(1, 2**31 - 1))
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete(group_id: int, yes: bool) -> None:
    """Delete a group and everything in it (its games, entries, links and players)."""
    with _session() as session:
        _group(session, group_id)
        if not yes:
            click.confirm(f"Delete group {group_id} and all its games?", abort=True)
        groups.delete_group(session=session, group_id=group_id)
    click.echo(f"group {group_id} deleted")


@cli.command("purge")
@click.option("--days", type=click.IntRange(1, 36500), default=None,
              help="Idle for more than this many days (default: GROUP_PURGE_DAYS).")
@click.option("--dry-run", is_flag=True, help="Only list the groups that would be deleted.")
def purge(days: int | None, dry_run: bool) -> None:
    """Delete every group idle for more than N days (off unless configured)."""
    days = days or current_app.config.get("GROUP_PURGE_DAYS")
    if not days:
        click.echo("Purging is off: set GROUP_PURGE_DAYS (or pass --days N).", err=True)
        sys.exit(1)
    with _session() as session:
        idle = groups.idle_groups(session, days=int(days))
        for group_id in idle:
            if not dry_run:
                groups.delete_group(session=session, group_id=group_id)
    verb = "would be deleted" if dry_run else "deleted"
    click.echo(f"{len(idle)} groups idle for more than {days} days {verb}: "
               f"{', '.join(map(str, idle)) or 'none'}")


@click.command("version")
def version_command() -> None:
    """Print this release's version (as /readyz, /metrics and the page footer show it)."""
    from ..common.release import version

    click.echo(version())


def store_summaries(engine: Engine) -> str:
    """Store every game's summary that is missing or out of date, and the totals of their
    groups (:func:`companion.play.summaries.refresh`); what it did, in words."""
    from ..play import summaries

    return f"Summaries stored: {summaries.refresh(engine)} games"


@click.command("summaries")
@click.option("--totals", is_flag=True,
              help="Also make every group's totals and lists again from its games' summaries.")
@with_appcontext
def summaries_command(totals: bool) -> None:
    """Store the games' summaries that are missing or out of date (`flask db upgrade` does it
    after migrating; run it after a rolling upgrade's last old server stopped). ``--totals``
    also makes every group's totals (per person, per pair) and its people's lists of finished
    games again: after an upgrade from a release that did not keep them all (1.0.0 kept no
    pair totals, 1.1.0 no lists)."""
    from ..db import check

    if not check(get_engine()).is_ready:
        raise click.ClickException("schema not ready: run flask db upgrade")
    click.echo(store_summaries(get_engine()))
    if totals:
        from ..play import group_totals

        click.echo(f"Totals made again: {group_totals.rebuild_all(get_engine())} groups")


def init_app(app: Flask) -> None:
    from ..db import AFTER_UPGRADE
    from . import backup

    app.cli.add_command(cli)
    app.cli.add_command(version_command)
    app.cli.add_command(summaries_command)
    app.extensions.setdefault(AFTER_UPGRADE, []).append(store_summaries)
    backup.init_app(app)  # flask backup FILE, flask restore FILE
