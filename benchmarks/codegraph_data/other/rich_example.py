from rich import print as rprint
from rich.console import Console
from rich.panel import Panel
from rich.progress import Progress, track
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

console = Console(width=80, record=True)
table = Table(title="Users", show_header=True, header_style="bold magenta")
table.add_column("Name", style="cyan")
table.add_column("Age", justify="right")
table.add_row("Ada", "36")
console.print(table)
console.print(Panel("hello", title="greeting"))
text = Text("Hello", style="bold")
text.append(" world", style="red")
text.stylize("underline", 0, 5)
console.print(text)
console.log("logged", log_locals=False)
console.rule("section")
for _ in track(range(3), description="working"):
    pass
with Progress() as progress:
    task = progress.add_task("download", total=10)
    progress.update(task, advance=5)
    progress.advance(task, 5)
console.print(Syntax("x = 1", "python", line_numbers=True))
html = console.export_html()
rprint("[bold]done[/bold]")
with console.status("waiting"):
    pass
