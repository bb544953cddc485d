"""Type stubs of the extension module ``reducer_kit._native`` (the kit's Rust
library; ``python/src/``). Use the documented functions of ``reducer_kit``."""

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

__version__: str

class ReducerKitError(ValueError):
    """An error of reducer-kit, with the command line's text."""

def cli_main(argv: Sequence[str]) -> int: ...
def validate(
    request: Dict[str, Any], format: str, allow_pending: bool, provider: Optional[str] = None
) -> List[Dict[str, Any]]: ...
def reduce(
    request: Dict[str, Any],
    policy: str,
    format: str,
    provider: Optional[str] = None,
    as_list: bool = False,
) -> Any: ...
def check(
    request: Dict[str, Any],
    output: Any,
    policy: str,
    format: str,
    provider: Optional[str] = None,
    summaries: bool = False,
    summary_tokens: Optional[int] = None,
) -> List[Dict[str, Any]]: ...
def generate(
    count: int, seed: int, format: str, policy: str, config: Optional[Mapping[str, Any]] = None
) -> List[Dict[str, Any]]: ...
def draw(
    data: bytes,
    format: str,
    protocol: int,
    without: str = "",
    knobs: Optional[Mapping[str, Any]] = None,
    swarm: Optional[bytes] = None,
) -> Optional[Dict[str, Any]]: ...
def generator_knobs(format: str, protocol: int) -> Tuple[Dict[str, Any], List[str]]: ...
def certify(
    reducer: Callable[[Dict[str, Any]], Any],
    *,
    name: str,
    policy: str,
    format: str,
    provider: Optional[str],
    protocol: int,
    summaries: bool,
    declare: str,
    without: str,
    with_knobs: str,
    cases: int,
    seed: int,
    corpus: List[str],
    replay: List[str],
    only: List[str],
    shrink_tries: int,
    shrink_time: float,
    max_output: int,
    jobs: int,
    rerun: Optional[str],
    stop_after_first: bool = False,
) -> Dict[str, Any]: ...
def loads(text: str) -> Any: ...
def dumps(obj: Any) -> str: ...
