"""The runner <-> extension wire protocol: JSON lines over a loopback TCP socket.

The TypeScript side (src/debug/trajectory/runner-protocol.ts) declares the same shapes;
both ends check ``protocol``. LLM calls do not travel here: they go over HTTP to the
recording gateway, tagged with the headers below so the gateway can attribute them.
"""

from __future__ import annotations

from typing import Any, Dict, Literal, NotRequired, TypedDict, Union

PROTOCOL_VERSION = 1

#: The environment variable holding the session token (the command line is world-readable).
TOKEN_ENV = "AGENTRL_RUNNER_TOKEN"

#: HTTP headers the runner's model clients add to every gateway request.
HEADER_EPISODE = "x-agentrl-episode"
#: base64(JSON list of SourceFrame), innermost user frame first.
HEADER_STACK = "x-agentrl-stack"
#: ``auxiliary/<i>`` on an auxiliary model's calls (the rollout model's carry none).
HEADER_ROLE = "x-agentrl-role"

Json = Dict[str, Any]


class _SourceFrameBase(TypedDict):
    path: str
    line: int


class SourceFrame(_SourceFrameBase, total=False):
    name: str
    #: In a traceback: the frame is in the user's code (not a library's).
    user: bool


class ModelEndpoint(TypedDict):
    """Where a model's calls go: the gateway (or its /aux/<i>/v1 path for auxiliary model i)."""

    baseUrl: str
    apiKey: str
    name: str


class TaskSelection(TypedDict, total=False):
    source: Json
    count: int
    ids: list[str | int]
    idKey: str
    #: Experiences to replay: [{"key", "index": task_index or None, "fallback": row, "why": str or None,
    #: "standIn": the recorded first user message the fallback holds, or None when the row keeps none}].
    replayed: list[Json]


class _PlanBase(TypedDict):
    kind: Literal["trinity", "astuner", "ajet"]
    cwd: str
    tasks: TaskSelection
    repeat: int
    workflow: str
    workflowArgs: Json
    rewardArgs: Json
    format: Json
    rolloutArgs: Json
    model: ModelEndpoint
    config: Any
    clientTimeout: float


class RunnerPlan(_PlanBase, total=False):
    """Everything the runner needs to run episodes, sent once in ``start``."""

    reward: str
    auxiliaryModels: list[ModelEndpoint]
    concurrency: int


class ErrorInfo(TypedDict):
    phase: Literal["workflow", "judge", "import", "tasks", "runner"]
    type: str
    message: str
    traceback: list[SourceFrame]
    #: The formatted Python traceback.
    text: str


# ---- runner -> extension


class DebugpyEndpoint(TypedDict):
    host: str
    port: int


class _HelloBase(TypedDict):
    type: Literal["hello"]
    protocol: int
    token: str
    pid: int
    python: str
    executable: str


class HelloMsg(_HelloBase, total=False):
    debugpy: DebugpyEndpoint
    debugpyNote: str


class TasksMsg(TypedDict):
    type: Literal["tasks"]
    count: int
    ids: list[str]


class SymbolsMsg(TypedDict):
    type: Literal["symbols"]
    functions: dict[str, SourceFrame]


class EpisodeStartMsg(TypedDict):
    type: Literal["episodeStart"]
    episode: str
    taskIndex: int
    taskId: str
    repeat: int
    task: Any


class EpisodeResult(TypedDict):
    """What running an episode gives: reward, success, metrics, metadata, experiences."""

    reward: float | None
    success: bool | None
    metrics: dict[str, float]
    metadata: Json
    experiences: list[Any]
    # The token ids and action mask of each experience the workflow returned (what training
    # sees), with its messages when it has them: the extension checks the mask against them.
    experienceTokens: NotRequired[list[Json]]


class _EpisodeEndBase(EpisodeResult):
    type: Literal["episodeEnd"]
    episode: str


class EpisodeEndMsg(_EpisodeEndBase, total=False):
    error: ErrorInfo


class _ExceptionBase(TypedDict):
    type: Literal["exception"]
    error: ErrorInfo


class ExceptionMsg(_ExceptionBase, total=False):
    """The runner holds on an error until ``resume`` with the same id (set by Channel.request)."""

    episode: str
    id: int


class _RewardBase(TypedDict):
    type: Literal["reward"]
    episode: str
    reward: float | None


class RewardMsg(_RewardBase, total=False):
    """Sent before episodeEnd; the runner waits for ``resume`` so the debugger may stop on it."""

    id: int
    # The workflow raised (episodeEnd carries the error).
    failed: bool
    # What the episode returned, as in episodeEnd: shown while stopped on the reward.
    experiences: list[Any]
    experienceTokens: list[Json]


class _OutputBase(TypedDict):
    type: Literal["output"]
    category: Literal["stdout", "stderr"]
    text: str


class OutputMsg(_OutputBase, total=False):
    episode: str
    source: SourceFrame


class DoneMsg(TypedDict):
    type: Literal["done"]


RunnerMessage = Union[
    HelloMsg, TasksMsg, SymbolsMsg, EpisodeStartMsg, EpisodeEndMsg, ExceptionMsg, RewardMsg, OutputMsg, DoneMsg
]
#: The messages that hold the runner until the extension resumes it.
HoldingMessage = Union[ExceptionMsg, RewardMsg]

# ---- extension -> runner


class StartMsg(TypedDict):
    type: Literal["start"]
    plan: RunnerPlan


class ResumeMsg(TypedDict):
    type: Literal["resume"]
    id: int


class StopMsg(TypedDict):
    type: Literal["stop"]


ExtensionMessage = Union[StartMsg, ResumeMsg, StopMsg]
