// libqrencode from the system (Debian: libqrencode-dev): the pairing QR code `bananas serve`
// prints in the terminal.
#include <qrencode.h>
