from contextbase.cli import main

main()
