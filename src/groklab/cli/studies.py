"""The commands that run groklab's own studies, beyond the papers: GrokBench and the early-warning study."""
from __future__ import annotations

from groklab.cli.commands import command_line


def cmd_grokbench(args) -> int:
    from groklab.experiments.grokbench.bench import grokbench

    if args.anchors is not None:  # the published claims in their authors' settings (anchors_v2.yaml)
        from groklab.experiments.grokbench.anchors_run import anchors

        anchors(args.profile, args.out, args.source, args.anchors, args.jobs)
        return 0

    return 0 if grokbench(args.profile, args.out, args.source, args.methods, args.tasks, args.jobs,
                          protocol_path=args.protocol, methods_path=args.add_methods) else 1


def cmd_earlywarn(args) -> int:
    from groklab import earlywarn

    earlywarn(args.out, args.stage, args.source, 1 if args.jobs is None else args.jobs, command=command_line())
    return 0
