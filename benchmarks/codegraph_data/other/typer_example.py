import typer

app = typer.Typer(help="demo")


@app.command()
def hello(name: str, count: int = typer.Option(1, "--count", "-c", help="times")) -> None:
    for _ in range(count):
        typer.echo(f"Hello {name}")
    typer.secho("done", fg=typer.colors.GREEN)


@app.command()
def bye(force: bool = typer.Option(False, "--force")) -> None:
    if not force:
        raise typer.Exit(code=1)


if __name__ == "__main__":
    app(["hello", "Ada", "--count", "2"], standalone_mode=False)
