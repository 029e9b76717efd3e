print('before')
import no_such_module_here
