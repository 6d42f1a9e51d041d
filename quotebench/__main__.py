from quotebench.cli import main

main()
