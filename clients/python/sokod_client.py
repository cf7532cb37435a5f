#!/usr/bin/python3
"""sokod_client.py: a small client of the sokod daemon, in Python.

Like the Python plugin example (plugins/heuristics/pydistance), it needs no
code generated for Python: only Debian's python3-grpcio and python3-protobuf.
It loads the daemon API at run time from the binary FileDescriptorSet that
`go generate ./proto/...` writes next to the .proto
(proto/sokod/v1/solver.binpb), and calls sokod.v1.SolverService over gRPC on
the daemon's Unix socket or a loopback TCP address.

    sokod_client.py [--address unix:///run/user/1000/sokod.sock] info
    sokod_client.py solve LEVEL_FILE [--level N] [--objective any|pushes]
                    [--time SECONDS] [--detach] [--json]
    sokod_client.py watch JOB_ID [--json]
    sokod_client.py cancel JOB_ID

`solve` streams the job's events: its id, progress (positions searched, the
position the search looks at), then the result; `watch` re-attaches to a job
by id, for instance one started with --detach, and prints the rest of its
events, or the result of a job that ended a little while ago. Output is one
line per event, or with --json one JSON object per event (protobuf's JSON
mapping, the same the daemon's HTTP API speaks). The exit code is 0 when the
level is solved, 5 unsolvable, 6 gave up or cancelled, 3 invalid level, 1 on
an RPC error.
"""

import argparse
import json
import os
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

SERVICE = "sokod.v1.SolverService"


def descriptor_set_path():
    """Finds solver.binpb: next to this script (installed), or in the source tree."""
    here = os.path.dirname(os.path.realpath(__file__))
    for candidate in (
        os.path.join(here, "solver.binpb"),
        os.path.join(here, "..", "..", "proto", "sokod", "v1", "solver.binpb"),
    ):
        if os.path.exists(candidate):
            return candidate
    raise FileNotFoundError("solver.binpb not found next to the script or in the source tree")


class Api:
    """The daemon API's message classes and its methods on one channel."""

    def __init__(self, channel):
        with open(descriptor_set_path(), "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
        pool = descriptor_pool.DescriptorPool()
        for fd in fds.file:  # dependencies come first in buf's output
            pool.Add(fd)
        self.pool = pool
        service = pool.FindServiceByName(SERVICE)
        for method in service.methods:
            request, response = self.message(method.input_type), self.message(method.output_type)
            path = "/%s/%s" % (SERVICE, method.name)
            make = channel.unary_stream if method.server_streaming else channel.unary_unary
            setattr(self, method.name, make(path, request_serializer=request.SerializeToString,
                                            response_deserializer=response.FromString))

    def message(self, desc):
        """Returns the class of a message descriptor (or full name)."""
        if isinstance(desc, str):
            desc = self.pool.FindMessageTypeByName(desc)
        if hasattr(message_factory, "GetMessageClass"):
            return message_factory.GetMessageClass(desc)
        return message_factory.MessageFactory(self.pool).GetPrototype(desc)

    def new(self, name, **fields):
        """Builds a message of sokod.v1 from its JSON field values."""
        return json_format.ParseDict(fields, self.message("sokod.v1." + name)())


def to_json(msg):
    return json_format.MessageToDict(msg, preserving_proto_field_name=False)


def describe(event):
    """One line for a SolveResponse event."""
    kind = event.WhichOneof("event")
    if kind == "accepted":
        a = event.accepted
        return "job %s accepted%s" % (a.job_id, ", queued at %d" % a.queue_position if a.queue_position else "")
    if kind == "started":
        return "running (queued %.1fs)" % event.started.queued.ToTimedelta().total_seconds()
    if kind == "progress":
        p = event.progress
        where = ""
        if p.HasField("position"):
            boxes = " ".join("%d,%d" % (b.x, b.y) for b in p.position.boxes)
            where = "; at player %d,%d boxes %s" % (p.position.player.x, p.position.player.y, boxes)
        return "%s %s: %d positions, %d generated, depth %d, bound %d, %.1fs%s" % (
            "plan" if p.phase == 2 else "search", p.component, p.nodes, p.generated, p.depth, p.lower_bound,
            p.elapsed.ToTimedelta().total_seconds(), where)
    r = event.result
    status = api_enum_name(r, "status")
    text = "%s" % status
    if r.reason:
        text += " (%s)" % r.reason
    if status == "STATUS_SOLVED":
        text += ": %d moves, %d pushes%s: %s" % (r.metrics.moves, r.metrics.pushes, ", optimal" if r.optimal else "",
                                                r.solution or "(already solved)")
    if status == "STATUS_INVALID_LEVEL":
        text += ": " + r.level_error.message
    return text


def api_enum_name(msg, field):
    """The name of an enum field's value ("STATUS_SOLVED")."""
    fd = msg.DESCRIPTOR.fields_by_name[field]
    return fd.enum_type.values_by_number[getattr(msg, field)].name


EXIT_CODES = {"STATUS_SOLVED": 0, "STATUS_UNSOLVABLE": 5, "STATUS_GAVE_UP": 6, "STATUS_CANCELLED": 6,
              "STATUS_INVALID_LEVEL": 3, "STATUS_FAILED": 1}


def follow(events, as_json):
    """Prints a Solve or Watch stream; returns the exit code of its result."""
    code = 1
    for event in events:
        print(json.dumps(to_json(event)) if as_json else describe(event), flush=True)
        if event.WhichOneof("event") == "result":
            code = EXIT_CODES.get(api_enum_name(event.result, "status"), 1)
    return code


def main(argv):
    parser = argparse.ArgumentParser(description="A client of the sokod daemon.")
    default = os.environ.get("SOKOD_ADDRESS") or "unix://%s/sokod.sock" % os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    parser.add_argument("--address", default=default, help="unix:///PATH or HOST:PORT (default %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="the daemon's name, version, limits and components")
    solve = sub.add_parser("solve", help="solve a level and stream the job's events")
    solve.add_argument("file")
    solve.add_argument("--level", type=int, default=1)
    solve.add_argument("--objective", choices=["any", "pushes"], default="any")
    solve.add_argument("--time", type=float, default=0, help="time budget in seconds; 0: the daemon's")
    solve.add_argument("--detach", action="store_true", help="keep the job running if this client leaves")
    solve.add_argument("--json", action="store_true")
    watch = sub.add_parser("watch", help="follow a job by id")
    watch.add_argument("job_id")
    watch.add_argument("--json", action="store_true")
    cancel = sub.add_parser("cancel", help="cancel a job by id")
    cancel.add_argument("job_id")
    args = parser.parse_args(argv)

    with grpc.insecure_channel(args.address) as channel:
        api = Api(channel)
        try:
            if args.command == "info":
                print(json.dumps(to_json(api.GetServerInfo(api.new("GetServerInfoRequest"))), indent=2))
                return 0
            if args.command == "cancel":
                api.Cancel(api.new("CancelRequest", jobId=args.job_id))
                return 0
            if args.command == "watch":
                return follow(api.Watch(api.new("WatchRequest", jobId=args.job_id)), args.json)
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
            options = {"objective": "OBJECTIVE_" + args.objective.upper(), "detach": args.detach}
            if args.time > 0:
                options["timeLimit"] = "%gs" % args.time
            request = api.new("SolveRequest", level=text, levelNumber=args.level, options=options)
            return follow(api.Solve(request), args.json)
        except grpc.RpcError as e:
            print("sokod_client: %s: %s" % (e.code().name, e.details()), file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
