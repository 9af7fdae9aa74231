// libyaml from the system (Debian: libyaml-dev, which also ships the static libyaml.a that the
// static `bananas` links).
#include <yaml.h>
