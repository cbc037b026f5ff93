"""Source of fastapi.jsonl: questions over ../shared/eval/fastapi_docs with gold anchors (regenerate, then check).

    python scripts/evalsets/source_fastapi.py [--corpus ../shared/eval/fastapi_docs]
    python scripts/evalsets/check_sets.py

must_contain was written from the gold lines, before kb was run on any question.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import build  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = next((p for p in ((HERE.parents[2] / "shared" / "eval" / "fastapi_docs"), (HERE.parents[3] / "shared" / "eval" / "fastapi_docs")) if p.is_dir()), HERE.parents[2] / "shared" / "eval" / "fastapi_docs")

CLI, CLI_ZH = "en/fastapi-cli.md", "zh/fastapi-cli.md"
DOCKER, DOCKER_ZH = "en/deployment/docker.md", "zh/deployment/docker.md"
WORKERS, WORKERS_ZH = "en/deployment/server-workers.md", "zh/deployment/server-workers.md"

Q: list[tuple] = [
    # ---------------- English: how do I (answer = a command or code) ----------------
    ("en", "exact", "howto", "how do I start the dev server for my main.py file?",
     [(CLI, "$ uv run fastapi dev main.py"), ("en/tutorial/first-steps.md", "$ uv run fastapi dev main.py")], ["fastapi dev main.py"]),
    ("en", "conceptual", "howto", "I manage my own virtualenv — how do I install FastAPI with pip?",
     [("en/tutorial/index.md", 'pip install "fastapi[standard]"')], ['pip install "fastapi[standard]"']),
    ("en", "conceptual", "howto", "How can I run my app with 4 worker processes?",
     [(WORKERS, "run --workers 4"), (WORKERS, "--port 8080 --workers 4")], ["--workers 4"]),
    ("en", "conceptual", "howto", "How do I build the docker image and start a container from it?",
     [(DOCKER, "$ docker build -t myimage ."), (DOCKER, "$ docker run -d --name mycontainer")],
     ["docker build -t myimage .", "docker run -d --name mycontainer -p 80:80 myimage"]),
    ("en", "conceptual", "howto", "What command generates a random secret key for signing JWT tokens?",
     [("en/tutorial/security/oauth2-jwt.md", "$ openssl rand -hex 32")], ["openssl rand -hex 32"]),
    ("en", "conceptual", "howto", "how do I install what's needed to receive form fields?",
     [("en/tutorial/request-forms.md", "$ uv add python-multipart")], ["python-multipart"]),
    ("en", "conceptual", "howto", "How do I run my test suite?",
     [("en/tutorial/testing.md", "$ uv run pytest"), ("en/advanced/async-tests.md", "$ uv run pytest")], ["uv run pytest"]),
    ("en", "exact", "howto", "how to turn off syntax highlighting in Swagger UI",
     [("en/how-to/configure-swagger-ui.md", "setting `syntaxHighlight` to `False`")], ["syntaxHighlight"]),
    ("en", "conceptual", "howto", "How do I produce a requirements.txt from my uv project for the Docker build?",
     [(DOCKER, "$ uv export --format requirements-txt")], ["uv export --format requirements-txt"]),
    ("en", "conceptual", "howto", "How can I serve an existing Flask app inside my FastAPI application?",
     [("en/advanced/wsgi.md", "uv add a2wsgi", "import `WSGIMiddleware` from `a2wsgi`")], ["a2wsgi", "WSGIMiddleware"]),
    ("en", "exact", "howto", "How do I point the fastapi command at backend/main.py in pyproject.toml?",
     [(CLI, 'entrypoint = "backend.main:app"'), ("en/tutorial/first-steps.md", 'entrypoint = "backend.main:app"')], ['entrypoint = "backend.main:app"']),
    # ---------------- English: lookups ----------------
    ("en", "exact", "lookup", "What's the default minimum_size of GZipMiddleware?",
     [("en/advanced/middleware.md", "* `minimum_size`")], ["500"]),
    ("en", "exact", "lookup", "how long do browsers cache CORS responses by default",
     [("en/tutorial/cors.md", "* `max_age`")], ["600"]),
    ("en", "exact", "lookup", "Which IP address does `fastapi run` listen on?",
     [(CLI, "It also listens on the IP address `0.0.0.0`")], ["0.0.0.0"]),
    ("en", "exact", "lookup", "What environment variable does fastapi dev set before importing the app, and to what?",
     [(CLI, "sets the `FASTAPI_ENV` environment variable")], ["FASTAPI_ENV", "development"]),
    ("en", "exact", "lookup", "Where can I see the ReDoc documentation?",
     [("en/tutorial/first-steps.md", "go to [http://127.0.0.1:8000/redoc]")], ["/redoc"]),
    ("en", "exact", "lookup", "CORSMiddleware allow_methods default?",
     [("en/tutorial/cors.md", "* `allow_methods`")], ["['GET']"]),
    ("en", "exact", "lookup", "Which library do the docs recommend for GraphQL?",
     [("en/how-to/graphql.md", "is the **recommended** library")], ["Strawberry"]),
    ("en", "exact", "lookup", "what URL is the OpenAPI schema served at by default?",
     [("en/how-to/conditional-openapi.md", 'same default of `"/openapi.json"`'),
      ("en/tutorial/metadata.md", "By default, the OpenAPI schema is served at `/openapi.json`.")], ["/openapi.json"]),
    # ---------------- English: comparisons (one gold range and one phrase per side) ----------------
    ("en", "conceptual", "comparison", "What's the difference between fastapi dev and fastapi run?",
     [(CLI, "Running `fastapi dev` initiates development mode.", "It also listens on the IP address `127.0.0.1`"),
      (CLI, "Executing `fastapi run` starts FastAPI in production mode.", "It also listens on the IP address `0.0.0.0`")],
     ["127.0.0.1", "0.0.0.0"]),
    ("en", "conceptual", "comparison", "PUT vs PATCH for updating an item — what's the difference?",
     [("en/tutorial/body-updates.md", "`PUT` is used to receive data that should replace the existing data."),
      ("en/tutorial/body-updates.md", "operation to *partially* update data.")],
     ["replace the existing data", "partially"]),
    ("en", "conceptual", "comparison", "Should I declare an uploaded file as bytes or UploadFile? How do they differ?",
     [("en/tutorial/request-files.md", "this means that the whole contents will be stored in memory"),
      ("en/tutorial/request-files.md", 'It uses a "spooled" file:', "after passing this limit it will be stored on disk")],
     ["whole contents will be stored in memory", "stored on disk"]),
    ("en", "conceptual", "comparison", "How does the lifespan parameter compare to the old startup and shutdown events?",
     [("en/advanced/events.md", "You can define this *startup* and *shutdown* logic using the `lifespan` parameter"),
      ("en/advanced/events.md", "If you provide a `lifespan` parameter, `startup` and `shutdown` event handlers will no longer be called")],
     ["lifespan", "will no longer be called"]),
    ("en", "conceptual", "comparison", "BackgroundTasks or Celery: when should I use which?",
     [("en/tutorial/background-tasks.md", "you need to perform small background tasks (like sending an email notification)"),
      ("en/tutorial/background-tasks.md", "If you need to perform heavy background computation")],
     ["small background tasks", "heavy background computation"]),
    ("en", "conceptual", "comparison", "How should I pin fastapi compared with starlette?",
     [("en/deployment/versions.md", "fastapi[standard]>=0.112.0,<0.113.0"),
      ("en/deployment/versions.md", "You shouldn't pin the version of `starlette`.")],
     ["fastapi[standard]>=0.112.0,<0.113.0", "shouldn't pin the version of `starlette`"]),
    ("en", "conceptual", "comparison", "What distinguishes a path parameter from a query parameter?",
     [("en/tutorial/path-params.md", "You can declare path \"parameters\" or \"variables\" with the same syntax used by Python format strings"),
      ("en/tutorial/query-params.md", "that are not part of the path parameters, they are automatically interpreted as \"query\" parameters")],
     ["Python format strings", "\"query\" parameters"]),
    # ---------------- English: which pages mention / refer to X ----------------
    ("en", "file_discovery", "mention", "Which pages mention the --proxy-headers option?",
     [(DOCKER, "add the option `--proxy-headers`"), ("en/advanced/behind-a-proxy.md", "By setting `--proxy-headers`")],
     ["en/deployment/docker.md", "en/advanced/behind-a-proxy.md"]),
    ("en", "file_discovery", "mention", "where in the docs is Redis mentioned?",
     [("en/tutorial/background-tasks.md", "like RabbitMQ or Redis"), (DOCKER, "* [Redis]"), ("en/advanced/websockets.md", "supported by Redis")],
     ["en/tutorial/background-tasks.md", "en/advanced/websockets.md"]),
    ("en", "relational", "mention", "Which pages refer to Celery?",
     [("en/tutorial/background-tasks.md", "bigger tools like [Celery]")], ["en/tutorial/background-tasks.md"]),
    ("en", "file_discovery", "mention", "Is a Raspberry Pi mentioned anywhere? On which page?",
     [(DOCKER, "Raspberry")], ["en/deployment/docker.md"]),
    # ---------------- English: file discovery ----------------
    ("en", "file_discovery", "file", "Which page explains running the app behind a proxy that strips a path prefix?",
     [("en/advanced/behind-a-proxy.md", 1)], ["en/advanced/behind-a-proxy.md"]),
    ("en", "file_discovery", "file", "where's the guide for moving from Pydantic v1 to v2?",
     [("en/how-to/migrate-from-pydantic-v1-to-pydantic-v2.md", 1)], ["en/how-to/migrate-from-pydantic-v1-to-pydantic-v2.md"]),
    ("en", "file_discovery", "file", "Which file covers testing WebSockets?",
     [("en/advanced/testing-websockets.md", 1)], ["en/advanced/testing-websockets.md"]),
    ("en", "file_discovery", "file", "which doc describes server-sent events?",
     [("en/tutorial/server-sent-events.md", 1)], ["en/tutorial/server-sent-events.md"]),
    # ---------------- English: explain ----------------
    ("en", "conceptual", "explain", "Why shouldn't auto-reload be used in production?",
     [(CLI, "By default, **auto-reload** is enabled")], ["resource-intensive"]),
    ("en", "conceptual", "explain", "Can I use ['*'] for allow_origins when allow_credentials is True?",
     [("en/tutorial/cors.md", "None of `allow_origins`, `allow_methods` and `allow_headers` can be set to `['*']`")], ["explicitly specified"]),
    ("en", "conceptual", "explain", "Why would I put a termination proxy in front of fastapi run?",
     [(CLI, 'have a "termination proxy" handling HTTPS')], ["handling HTTPS"]),
    ("en", "conceptual", "explain", "On Kubernetes, should each container run several Uvicorn workers?",
     [(DOCKER, "You would want to have just a **single Uvicorn process** per container"),
      (WORKERS, "you will probably **not** want to use workers and instead run **a single Uvicorn process per container**"),
      (DOCKER, "running **a single Uvicorn process** instead of using multiple Uvicorn workers")], ["single Uvicorn process"]),
    # ---------------- English: unanswerable (plausible, but the docs do not say) ----------------
    ("en", "conceptual", "unanswerable", "How do I enable HTTP/3 (QUIC) in the FastAPI server?", [], []),
    ("en", "exact", "unanswerable", "What is the default maximum upload file size in bytes?", [], []),
    ("en", "conceptual", "unanswerable", "How do I add per-IP rate limiting to my endpoints?", [], []),
    ("en", "conceptual", "unanswerable", "How do I deploy FastAPI to AWS Lambda with Mangum?", [], []),
    ("en", "exact", "unanswerable", "What's the keep-alive timeout of fastapi run?", [], []),
    ("en", "conceptual", "unanswerable", "How do I expose a gRPC service next to my REST endpoints?", [], []),
    ("en", "conceptual", "unanswerable", "How do I configure Celery's result backend for my FastAPI tasks?", [], []),
    ("en", "conceptual", "unanswerable", "How do I consume Kafka messages in a FastAPI app?", [], []),
    ("en", "exact", "unanswerable", "How many requests per second does FastAPI serve compared to Tornado?", [], []),
    ("en", "conceptual", "unanswerable", "How do I set up a Kubernetes HorizontalPodAutoscaler for my FastAPI pods?", [], []),
    ("en", "exact", "unanswerable", "How much does FastAPI Cloud cost per month?", [], []),
    ("en", "conceptual", "unanswerable", "How do I send errors to Sentry?", [], []),
    ("en", "exact", "unanswerable", "What is the default request timeout for a path operation?", [], []),
    ("en", "conceptual", "unanswerable", "How do I export Prometheus metrics from FastAPI?", [], []),
    ("en", "conceptual", "unanswerable", "How do I require mutual TLS client certificates?", [], []),
    ("en", "conceptual", "unanswerable", "How do I translate validation error messages into other languages?", [], []),
    # ---------------- Chinese: how do I ----------------
    ("zh", "conceptual", "howto", "怎么用 pip 安装 FastAPI？",
     [("zh/tutorial/index.md", 'pip install "fastapi[standard]"')], ['pip install "fastapi[standard]"']),
    ("zh", "conceptual", "howto", "开发模式启动命令",
     [(CLI_ZH, "可以使用 `fastapi dev` 命令"), (CLI_ZH, "$ uv run fastapi dev main.py"), ("zh/tutorial/first-steps.md", "$ uv run fastapi dev main.py")], ["fastapi dev"]),
    ("zh", "conceptual", "howto", "如何开启多个 worker 进程？",
     [(WORKERS_ZH, "run --workers 4"), (WORKERS_ZH, "--port 8080 --workers 4")], ["--workers"]),
    ("zh", "conceptual", "howto", "怎样生成 JWT 签名用的随机密钥？",
     [("zh/tutorial/security/oauth2-jwt.md", "$ openssl rand -hex 32")], ["openssl rand -hex 32"]),
    ("zh", "conceptual", "howto", "构建 Docker 镜像的命令",
     [(DOCKER_ZH, "$ docker build -t myimage .")], ["docker build -t myimage ."]),
    ("zh", "conceptual", "howto", "写测试前要先装什么包？",
     [("zh/tutorial/testing.md", "$ uv add httpx")], ["httpx"]),
    ("zh", "conceptual", "howto", "如何安装 Jinja2 模板？",
     [("zh/advanced/templates.md", "$ uv add jinja2")], ["uv add jinja2"]),
    ("zh", "conceptual", "howto", "怎么在 FastAPI 里挂载 Flask 应用？",
     [("zh/advanced/wsgi.md", "uv add a2wsgi")], ["a2wsgi"]),
    ("zh", "exact", "howto", "如何彻底关闭 OpenAPI 和文档页面？",
     [("zh/tutorial/metadata.md", "openapi_url=None")], ["openapi_url=None"]),
    ("zh", "conceptual", "howto", "固定 FastAPI 版本范围怎么写？",
     [("zh/deployment/versions.md", "fastapi[standard]>=0.112.0,<0.113.0")], ["fastapi[standard]>=0.112.0,<0.113.0"]),
    # ---------------- Chinese: lookups ----------------
    ("zh", "exact", "lookup", "GZip 默认压缩级别",
     [("zh/advanced/middleware.md", "* `compresslevel`")], ["9"]),
    ("zh", "exact", "lookup", "CORS 预检响应默认缓存多少秒？",
     [("zh/tutorial/cors.md", "* `max_age`")], ["600"]),
    ("zh", "exact", "lookup", "fastapi dev 监听哪个 IP？",
     [(CLI_ZH, "它还会监听 IP 地址 `127.0.0.1`")], ["127.0.0.1"]),
    ("zh", "exact", "lookup", "allow_credentials 默认值是什么？",
     [("zh/tutorial/cors.md", "* `allow_credentials`")], ["False"]),
    ("zh", "exact", "lookup", "GraphQL 推荐用哪个库？",
     [("zh/how-to/graphql.md", "是**推荐**的库")], ["Strawberry"]),
    ("zh", "exact", "lookup", "请求头参数怎么关掉下划线转连字符？",
     [("zh/tutorial/header-params.md", "`convert_underscores` 参数设置为 `False`")], ["convert_underscores", "False"]),
    ("zh", "exact", "lookup", "ReDoc 文档的地址",
     [("zh/tutorial/first-steps.md", "前往 [http://127.0.0.1:8000/redoc]")], ["/redoc"]),
    # ---------------- Chinese: comparisons ----------------
    ("zh", "conceptual", "comparison", "fastapi dev 和 fastapi run 有什么区别？",
     [(CLI_ZH, "它还会监听 IP 地址 `127.0.0.1`"), (CLI_ZH, "它将监听 IP 地址 `0.0.0.0`")], ["127.0.0.1", "0.0.0.0"]),
    ("zh", "conceptual", "comparison", "PUT 和 PATCH 更新数据有何不同？",
     [("zh/tutorial/body-updates.md", "`PUT` 用于接收替换现有数据的数据。"), ("zh/tutorial/body-updates.md", "操作对数据进行*部分*更新")],
     ["替换现有数据", "部分"]),
    ("zh", "conceptual", "comparison", "上传文件用 bytes 和 UploadFile 的区别是什么？",
     [("zh/tutorial/request-files.md", "这意味着整个内容会存储在内存中"), ("zh/tutorial/request-files.md", "超过该上限后会写入磁盘")],
     ["整个内容会存储在内存中", "写入磁盘"]),
    ("zh", "conceptual", "comparison", "后台任务 BackgroundTasks 和 Celery 该怎么选？",
     [("zh/tutorial/background-tasks.md", "执行小型后台任务"), ("zh/tutorial/background-tasks.md", "如果你需要执行繁重的后台计算")],
     ["小型后台任务", "繁重的后台计算"]),
    ("zh", "conceptual", "comparison", "--reload 和 --workers 选项有什么不同？",
     [("zh/deployment/manually.md", "Uvicorn 和其他服务器支持 `--reload` 选项"), (WORKERS_ZH, "run --workers 4")],
     ["--reload", "--workers"]),
    ("zh", "conceptual", "comparison", "/docs 和 /redoc 两个文档页面有什么区别？",
     [("zh/tutorial/first-steps.md", "跳转到 [http://127.0.0.1:8000/docs]", "Swagger UI"), ("zh/tutorial/first-steps.md", "前往 [http://127.0.0.1:8000/redoc]", "ReDoc")],
     ["Swagger UI", "ReDoc"]),
    # ---------------- Chinese: which pages mention ----------------
    ("zh", "file_discovery", "mention", "哪些页面提到了 --proxy-headers？",
     [(DOCKER_ZH, "请添加 `--proxy-headers` 选项"), ("zh/advanced/behind-a-proxy.md", "通过设置 `--proxy-headers`")],
     [["zh/deployment/docker.md", "en/deployment/docker.md"], ["zh/advanced/behind-a-proxy.md", "en/advanced/behind-a-proxy.md"]]),
    ("zh", "file_discovery", "mention", "哪些文档提到了 MongoDB？",
     [("zh/alternatives.md", "MongoDB"), (DOCKER_ZH, "* [MongoDB]"), ("zh/advanced/async-tests.md", "MongoDB")],
     [["zh/deployment/docker.md", "en/deployment/docker.md"], ["zh/advanced/async-tests.md", "en/advanced/async-tests.md"]]),
    ("zh", "relational", "mention", "哪个页面引用了 Celery？",
     [("zh/tutorial/background-tasks.md", "[Celery]")], [["zh/tutorial/background-tasks.md", "en/tutorial/background-tasks.md"]]),
    # ---------------- Chinese: file discovery ----------------
    ("zh", "file_discovery", "file", "哪个文件讲 CORS？",
     [("zh/tutorial/cors.md", 1)], [["zh/tutorial/cors.md", "en/tutorial/cors.md"]]),
    ("zh", "file_discovery", "file", "环境变量的文档在哪？",
     [("zh/environment-variables.md", 1)], [["zh/environment-variables.md", "en/environment-variables.md"]]),
    ("zh", "file_discovery", "file", "介绍虚拟环境的是哪个页面",
     [("zh/virtual-environments.md", 1)], [["zh/virtual-environments.md", "en/virtual-environments.md"]]),
    ("zh", "file_discovery", "file", "哪个文件介绍 WebSocket？",
     [("zh/advanced/websockets.md", 1)], [["zh/advanced/websockets.md", "en/advanced/websockets.md"]]),
    # ---------------- Chinese: explain ----------------
    ("zh", "conceptual", "explain", "为什么生产环境不要开自动重载？",
     [(CLI_ZH, "默认情况下，它会启用**自动重载**")], ["资源密集型"]),
    ("zh", "conceptual", "explain", "UploadFile 适合处理哪类文件？",
     [("zh/tutorial/request-files.md", "非常适合处理图像、视频、大型二进制等大文件")], ["大文件"]),
    ("zh", "conceptual", "explain", "为什么不该固定 starlette 的版本？",
     [("zh/deployment/versions.md", "你不应该固定`starlette`的版本。", 80)], ["不应该固定`starlette`的版本"]),
    ("zh", "conceptual", "explain", "allow_credentials 为 True 时为什么不能用通配符？",
     [("zh/tutorial/cors.md", "当 `allow_credentials` 设为 `True` 时")], ["显式指定"]),
    ("zh", "conceptual", "explain", "容器里要不要跑多个 Uvicorn worker？",
     [(DOCKER_ZH, "**单个 Uvicorn 进程**")], ["单个 Uvicorn 进程"]),
    # ---------------- Chinese: unanswerable ----------------
    ("zh", "conceptual", "unanswerable", "如何在 FastAPI 中启用 HTTP/3？", [], []),
    ("zh", "exact", "unanswerable", "上传文件默认最大允许多少 MB？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么给接口做按 IP 限流？", [], []),
    ("zh", "conceptual", "unanswerable", "如何把 FastAPI 部署到 AWS Lambda？", [], []),
    ("zh", "conceptual", "unanswerable", "FastAPI 怎么消费 Kafka 消息？", [], []),
    ("zh", "exact", "unanswerable", "FastAPI 比 Tornado 快多少倍？", [], []),
    ("zh", "conceptual", "unanswerable", "怎样配置 Redis 缓存接口响应？", [], []),
    ("zh", "conceptual", "unanswerable", "如何用 gRPC 暴露服务？", [], []),
    ("zh", "conceptual", "unanswerable", "Kubernetes 自动扩缩容怎么配置？", [], []),
    ("zh", "exact", "unanswerable", "FastAPI Cloud 的价格是多少？", [], []),
    ("zh", "exact", "unanswerable", "默认请求超时时间是几秒？", [], []),
    ("zh", "conceptual", "unanswerable", "如何接入 Sentry 监控错误？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么导出 Prometheus 指标？", [], []),
    ("zh", "conceptual", "unanswerable", "如何用 OpenTelemetry 做链路追踪？", [], []),
    ("zh", "conceptual", "unanswerable", "校验错误信息怎么翻译成中文？", [], []),
    ("zh", "conceptual", "unanswerable", "如何把 FastAPI 作为 Windows 服务运行？", [], []),
    ("zh", "exact", "unanswerable", "Celery 的 result backend 怎么配？", [], []),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    a = ap.parse_args()
    build(Path(a.corpus), "fa", Q, HERE / "fastapi.jsonl")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
