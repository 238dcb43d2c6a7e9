"""``torch.distributed.launch``: PyTorch's older launcher, ``torchrun`` (``npgrad.distributed.run``) plus
``--local-rank=<local rank>`` appended to each process's arguments (unless ``--use-env``, where scripts read
``LOCAL_RANK`` from the environment, as under torchrun)."""
import sys
import warnings

from .run import get_args_parser, run


def parse_args(args):
    parser = get_args_parser()
    parser.add_argument("--use-env", "--use_env", action="store_true",
                        help="do not pass --local-rank to the script: it reads LOCAL_RANK from the environment")
    return parser.parse_args(args)


def launch(args):
    return run(args)


def main(args=None):
    warnings.warn("The module torch.distributed.launch is deprecated\nand will be removed in future. Use torchrun.\n"
                  "Note that --use-env is set by default in torchrun.\nIf your script expects `--local-rank` argument "
                  "to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead.",
                  FutureWarning, stacklevel=2)
    return launch(parse_args(sys.argv[1:] if args is None else args))


if __name__ == "__main__":
    raise SystemExit(main())
