"""The MCP tasks extension (SEP-2663) as the official Python SDK's client sees it: the types
python_client_tasks.py and python_client_fleet.py send and read. The SDK (mcp 2.3.0) has no
tasks client of its own; an application declares these beside a `ClientExtension`.
"""

from typing import Any, Literal

from mcp_types import Request, RequestParams, Result
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"


class TaskParams(RequestParams):
    task_id: str


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CreatedTask(Result):
    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str


class DetailedTask(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
