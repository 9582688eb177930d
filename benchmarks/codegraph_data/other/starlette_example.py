from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient


async def homepage(request: Request) -> JSONResponse:
    name = request.query_params.get("name", "world")
    return JSONResponse({"hello": name, "path": request.url.path}, status_code=200)


async def echo(request: Request) -> PlainTextResponse:
    body = await request.body()
    return PlainTextResponse(body.decode(), headers={"X-Echo": "1"})


app = Starlette(
    debug=True,
    routes=[Route("/", homepage), Route("/echo", echo, methods=["POST"])],
    middleware=[Middleware(CORSMiddleware, allow_origins=["*"])],
)
client = TestClient(app)
print(client.get("/?name=x").json())
