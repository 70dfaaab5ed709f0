import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { RateLimit } from 'nestjs-limiter';

@Controller('sms')
export class SmsController {
  /** One code a minute per phone number. */
  @Post('code')
  @HttpCode(200)
  @RateLimit({ key: 'sms:#{body.phone}', rate: 1 / 60, burst: 60 })
  sendCode(@Body() body: { phone: string }) {
    return { sent: true, phone: body.phone };
  }
}
