import CCurl
import COpenSSL
let _c = CURLOPT_URL
