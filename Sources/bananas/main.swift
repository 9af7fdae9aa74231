import BananasCLI

BananasCommand.main()
