// Threading of libstdc++ on a bare-metal Tensix core: none (see os_defines.h).
#include <bits/gthr-single.h>
