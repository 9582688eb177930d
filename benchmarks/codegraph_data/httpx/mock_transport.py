"""Test code against a mock transport instead of the network."""

from httpx import Client, MockTransport, Request, Response


def handler(request: Request) -> Response:
    if request.url.path == "/users":
        return Response(200, json=[{"id": 1}, {"id": 2}])
    return Response(404, text="not here")


def main() -> None:
    transport = MockTransport(handler)
    client = Client(transport=transport, base_url="https://api.example.com")
    users = client.get("/users").json()
    missing = client.get("/nope")
    print(len(users), missing.status_code, missing.is_error, missing.text)
    client.close()


if __name__ == "__main__":
    main()
