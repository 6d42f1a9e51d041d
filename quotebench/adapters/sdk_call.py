"""One timed request through an official provider SDK, with every failure mapped to api-error.

The openai and anthropic SDKs share one error hierarchy (APITimeoutError < APIConnectionError,
APIStatusError, BadRequestError, APIError), so the timing, the one-time retry without a rejected
temperature and the error mapping live here once. The SDK's own retries (max_retries, retry-after)
have already run when an exception reaches this code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType

from quotebench.adapters import Reply, Request


def short(text: object, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def api_error(reason: str, started: float, meta: dict, **extra) -> Reply:
    return Reply(
        None,
        status="api-error",
        error=reason,
        latency_s=time.perf_counter() - started,
        meta={**meta, **extra},
    )


def call(sdk: ModuleType, adapter, request: Request, status_message: Callable[[Exception], str]):
    """Return (response, latency_s, meta) or an api-error Reply.

    adapter.create(request, with_temperature) sends the request; adapter.send_temperature is turned
    off for the rest of the run the first time the endpoint rejects the temperature parameter.
    """
    meta: dict = {}
    started = time.perf_counter()
    retries = adapter.client.max_retries
    try:
        try:
            response = adapter.create(request, adapter.send_temperature)
        except sdk.BadRequestError as exc:
            if not (adapter.send_temperature and "temperature" in str(exc).lower()):
                raise
            adapter.send_temperature = False
            meta["temperature_dropped"] = True
            response = adapter.create(request, False)
    except sdk.APITimeoutError:  # a subclass of APIConnectionError, so it comes first
        return api_error(f"timeout after {retries} retries", started, meta)
    except sdk.APIConnectionError as exc:
        return api_error(
            f"connection error after {retries} retries: {short(exc.__cause__ or exc)}", started, meta
        )
    except sdk.APIStatusError as exc:
        return api_error(
            f"HTTP {exc.status_code}: {short(status_message(exc))}",
            started,
            meta,
            http_status=exc.status_code,
        )
    except sdk.APIError as exc:  # e.g. APIResponseValidationError
        return api_error(f"{type(exc).__name__}: {short(exc)}", started, meta)
    except ValueError as exc:  # a JSON content type with an undecodable body
        return api_error(f"malformed response body: {short(exc)}", started, meta)
    return response, time.perf_counter() - started, meta
