"""`fctlab plugin new|build|equivalence`: a Rust protocol plug-in's crate written or built, and the
example plug-ins compared with the built-ins they copy (`fctlab.tools.plugins`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from fctlab.atomic import write_text
from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab plugin` to the command's subparsers."""
    pl = sub.add_parser("plugin", help="write or build a Rust protocol plug-in (a crate against fctlab-plugin)")
    pl_sub = pl.add_subparsers(dest="plugin_command", required=True, metavar="COMMAND")
    pn = pl_sub.add_parser(
        "new",
        help="write a Rust plug-in crate in DIR (new or empty): a NewReno host law against this fctlab's API crate, "
        "which builds from any folder",
    )
    pn.add_argument("folder", metavar="DIR", help="the new crate's folder; its name is the crate's (e.g. my_cc)")
    pn.add_argument(
        "--name", help="the name the law exports, its label in the flows table (default: the folder's name)"
    )
    pn.set_defaults(func=cmd_plugin_new)
    pb = pl_sub.add_parser("build", help="cargo build --release the plug-in crate in DIR; print the spelling to use")
    pb.add_argument("folder", metavar="DIR", help="the plug-in crate's folder (e.g. examples/plugins/template)")
    pb.set_defaults(func=cmd_plugin_build)
    pe = pl_sub.add_parser(
        "equivalence",
        help="run the benchmark scenarios with the example plug-ins and with the built-ins they copy; "
        "compare the flows tables bit for bit",
    )
    pe.add_argument("--root", default=".", help="the fctlab repository (default: here)")
    pe.add_argument("--report", metavar="FILE", help="also write the report (Markdown)")
    pe.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    pe.set_defaults(func=cmd_plugin_equivalence)


def cmd_plugin_new(args: argparse.Namespace) -> int:
    """`fctlab plugin new DIR`: write the crate, say what it depends on and what to do next."""
    from fctlab.tools import plugins

    try:
        made = plugins.new_crate(args.folder, args.name)
    except plugins.PluginBuildError as e:
        raise options.UsageError(str(e)) from e
    shown = args.folder.rstrip("/") or "."
    print(f'wrote {shown}/Cargo.toml and {shown}/src/lib.rs: a NewReno host law exported as "{made.name}"')
    if made.copied:
        print(
            f"its API crate is a copy in {shown}/fctlab-plugin (this fctlab was not installed from a checkout): the "
            "crate builds in any folder, on any machine; an fctlab of another plug-in API refuses its library naming "
            "both versions: then write a new crate with that fctlab's `fctlab plugin new` and move your law into it"
        )
    else:
        print(
            f"its API crate is this fctlab's checkout's, by absolute path ({made.api}): the crate builds in any "
            "folder while the checkout is there"
        )
    print(f"build it with: fctlab plugin build {shown}")
    return 0


def cmd_plugin_build(args: argparse.Namespace) -> int:
    """`fctlab plugin build DIR`: build the crate, print the library and how to name it."""
    from fctlab.tools import plugins

    try:
        lib = plugins.build(args.folder)
    except plugins.PluginBuildError as e:
        raise options.UsageError(str(e)) from e
    try:
        shown = lib.relative_to(Path.cwd())
    except ValueError:
        shown = lib
    print(f"built {lib}")
    print(f'name it in a scenario (paths are relative to the scenario\'s folder): cc = "rust:{shown}"')
    return 0


def cmd_plugin_equivalence(args: argparse.Namespace) -> int:
    """`fctlab plugin equivalence`: the report; exit 1 if a flows table differs."""
    from fctlab.tools import plugins

    try:
        report, identical = plugins.equivalence(args.root, progress=options.progress_wanted(args.quiet))
    except plugins.PluginBuildError as e:
        raise options.UsageError(str(e)) from e
    print(report)
    if args.report:
        write_text(args.report, report)
    return 0 if identical else options.EXIT_RUNS_FAILED
