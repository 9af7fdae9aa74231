import BananasCLI

BananasCommand.mainAcceptingLeadingFileOption()
